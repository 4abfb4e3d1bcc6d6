import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/quietWarnings.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two-core CI machines: provider-host and language-host processes are spawned per file.
    maxWorkers: 2,
  },
});
