/**
 * Loads the compiled package with plain `require`, as the Pulumi hosts do. Vite rewrites sources
 * it imports, which changes what the closure serializer sees, so provider and serialization tests
 * must never import `src/` for the code under test.
 */
import { createRequire } from "node:module";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");
export const requireFromRepo = createRequire(path.join(REPO_ROOT, "package.json"));

export type EmulatorModule = typeof import("../../src/emulator");
export type ServerImpl = typeof import("../../src/dynamic/generated/host/server");
export type ExportImpl = typeof import("../../src/dynamic/generated/host/lobbyHistoryExport");
export type ApiModule = typeof import("../../src/api");
export type PulumiModule = typeof import("@pulumi/pulumi");
export type PackageModule = typeof import("../../src/index");

export const dist = {
  emulator: () => requireFromRepo("pulumi-gamehost/emulator") as EmulatorModule,
  api: () => requireFromRepo("pulumi-gamehost/api") as ApiModule,
  serverImpl: () => requireFromRepo("pulumi-gamehost/provider/server") as ServerImpl,
  exportImpl: () => requireFromRepo("pulumi-gamehost/provider/lobby-history-export") as ExportImpl,
  pkg: () => requireFromRepo("pulumi-gamehost") as PackageModule,
  pulumi: () => requireFromRepo("@pulumi/pulumi") as PulumiModule,
};
