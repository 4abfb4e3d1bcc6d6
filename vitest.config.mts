import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/quietWarnings.ts"],
    // Real-CLI and engine scenarios run several CLI or host processes per test beside each other on 2 cores:
    // a timeout here guards against a hang, it is no speed target (benchmarks are).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two-core CI machines: provider-host and language-host processes are spawned per file.
    maxWorkers: 2,
  },
});
