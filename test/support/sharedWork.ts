/**
 * Work that several test files of one run need alike and that no scenario is about (a Node.js binary fetched
 * from the registry, the tarball `npm pack` makes of the built tree), made once per run and shared: test files
 * run in parallel worker processes, so the first to ask makes it under a lock (an atomic `mkdir`) while the
 * others wait for it. The e2e project's globalSetup (this file's default export) makes the run's folder under
 * the OS temp dir, hands it to the workers (`inject("sharedWorkDir")`) and removes it when the run ends.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inject } from "vitest";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    sharedWorkDir: string;
  }
}

/** globalSetup: the run's shared folder, removed at the end of the run. */
export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-shared-"));
  project.provide("sharedWorkDir", dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

/** A hang guard for the wait on another file's work: an install or a pack took over 3 min on 2 busy cores. */
const WAIT_LIMIT_MS = 900_000;
const POLL_MS = 250;

/**
 * The folder `root/key`, made by `make` (into a folder of its own, renamed into place when it resolves) by the
 * first caller of any process; the others wait for it. A failure of `make` is every caller's failure.
 */
export async function onceIn(
  root: string,
  key: string,
  make: (dir: string) => Promise<void>,
  waitLimitMs = WAIT_LIMIT_MS,
): Promise<string> {
  const done = path.join(root, key);
  const failed = `${done}.failed`;
  const started = Date.now();
  for (;;) {
    if (fs.existsSync(done)) return done;
    if (fs.existsSync(failed))
      throw new Error(`${key}, made by another test file, failed:\n${fs.readFileSync(failed, "utf8")}`);
    try {
      fs.mkdirSync(`${done}.lock`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (Date.now() - started > waitLimitMs)
        throw new Error(`${key}: waited ${waitLimitMs} ms for another test file to make it`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    const work = `${done}.work-${process.pid}`;
    fs.mkdirSync(work);
    try {
      await make(work);
      fs.renameSync(work, done);
      return done;
    } catch (error) {
      fs.writeFileSync(failed, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }
}

/** Outside the e2e project (no globalSetup): a folder of this process's own, removed when it exits. */
let fallbackRoot: string | undefined;
function sharedRoot(): string {
  const provided = inject("sharedWorkDir");
  if (provided) return provided;
  if (!fallbackRoot) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-shared-"));
    process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }));
    fallbackRoot = root;
  }
  return fallbackRoot;
}

const made = new Map<string, Promise<string>>();

/** The run's folder `key`, made once by `make` across every test file of the run. */
export function sharedOnce(key: string, make: (dir: string) => Promise<void>): Promise<string> {
  let folder = made.get(key);
  if (!folder) {
    folder = onceIn(sharedRoot(), key, make);
    made.set(key, folder);
  }
  return folder;
}
