/** Shared pieces of the harness self-tests: the store program and its provider's call log. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type ConfigEntry, type JsonValue, Stack, type Step } from "../../harness/src";

/** The JS program whose dynamic provider keeps items as files (see programs/store/index.js). */
export const STORE_PROGRAM = path.join(__dirname, "programs", "store");
/** The TypeScript program (programs/typed/index.ts). */
export const TYPED_PROGRAM = path.join(__dirname, "programs", "typed");
/** A TypeScript program with a type error and nothing else wrong. */
export const MISTYPED_PROGRAM = path.join(__dirname, "programs", "mistyped");

/** One item the store program declares. */
export interface ItemSpec {
  name: string;
  value: string;
  /** Take the value from another item's `derived` output instead (unknown during a first preview). */
  valueFrom?: string;
  key?: string;
  dependsOn?: string[];
  deleteBeforeReplace?: boolean;
  useToken?: boolean;
  secretDerived?: boolean;
  delayMs?: number;
  failCreate?: boolean;
}

/** A call the store provider logged. */
export interface LogEntry {
  op: "configure" | "check" | "create" | "update" | "delete";
  name?: string;
  id?: string;
  /** check: the `value` input as the provider saw it. */
  value?: unknown;
  /** configure/check: the token as the provider saw it. */
  token?: unknown;
  /** When the call started (create only). */
  start?: number;
  /** When the call finished. */
  at: number;
}

function asJson(items: ItemSpec[]): JsonValue {
  return JSON.parse(JSON.stringify(items)) as JsonValue;
}

const tempDirs: string[] = [];

/** A new temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(prefix = "harness-selftest-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory made by {@link tempDir} (call from `afterAll`). */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A fresh state directory and a stack of the store program over it. */
export function storeStack(items: ItemSpec[], config: Record<string, ConfigEntry | string> = {}) {
  const stateDir = tempDir("harness-store-");
  const stack = new Stack({
    programDir: STORE_PROGRAM,
    config: { "selftest:stateDir": stateDir, "selftest:items": { value: asJson(items) }, ...config },
    checkpointFile: path.join(stateDir, "checkpoint", "dev.json"),
  });
  const setItems = (next: ItemSpec[]) => stack.setConfig("selftest:items", { value: asJson(next) });
  return { stack, stateDir, setItems, log: () => readLog(stateDir) };
}

/** The provider's call log (empty if nothing was logged yet). */
export function readLog(stateDir: string): LogEntry[] {
  const file = path.join(stateDir, "log.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

/** Mutating provider calls only (Create/Update/Delete). */
export function mutations(log: readonly LogEntry[]): LogEntry[] {
  return log.filter((e) => e.op === "create" || e.op === "update" || e.op === "delete");
}

/** Ops per resource name, for custom non-provider resources, in step order. */
export function opsByName(steps: readonly Step[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of steps) {
    if (!s.custom || s.type.startsWith("pulumi:providers:")) continue;
    out[s.name] = [...(out[s.name] ?? []), s.op];
  }
  return out;
}
