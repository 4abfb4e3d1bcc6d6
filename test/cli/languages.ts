/**
 * Shared pieces of the real-CLI language scenarios (YAML, Python, Go, generated SDKs): SDK generation by
 * `pulumi package gen-sdk`, the Python virtualenv with PyPI's `pulumi`, and the programs of
 * docs/languages.md. The pinned build's nodejs, python and go hosts generate code through
 * tools/codegen-host (see scripts/build-pulumi.sh); a `pulumi` of a current release does it itself.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { REPO_ROOT } from "../support/dist";
import { liveServers } from "../support/emulator";
import { CliProject, cliPath } from "../support/realPulumi";

/** The plugin folder (what `npm install pulumi-gamehost` puts at node_modules/pulumi-gamehost/plugin). */
export const PLUGIN_DIR = path.join(REPO_ROOT, "plugin");
export const SCHEMA_FILE = path.join(PLUGIN_DIR, "schema.json");
/** PyPI's newest `pulumi`, the Python SDK the generated code runs on. */
export const PYPI_PULUMI = "pulumi==3.272.0";
const VENV = path.join(REPO_ROOT, ".pulumi-cli", "venv");

function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
) {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 600_000, ...options });
  expect(result.status, `${command} ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

/**
 * The SDK `pulumi package gen-sdk plugin/schema.json --language <language>` writes, moved to `out`; fails
 * on any warning the generator prints about the schema (a warning is a defect of src/plugin/schema.ts).
 */
export async function generateSdk(language: "python" | "go" | "nodejs", out: string): Promise<void> {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const root = fs.mkdtempSync(path.join(path.dirname(out), `.gen-sdk-${language}-`));
  const work = path.join(root, "work");
  fs.mkdirSync(work);
  const result = await new CliProject(work, root).run([
    "package",
    "gen-sdk",
    SCHEMA_FILE,
    "--language",
    language,
    "--out",
    path.join(root, "sdk"),
  ]);
  expect(
    result.code,
    `pulumi package gen-sdk --language ${language}:\n${result.stdout}\n${result.stderr}`,
  ).toBe(0);
  // The CLI's one line on success; anything else is the generator's diagnostics about plugin/schema.json.
  expect(result.stderr.trim()).toBe(`SDK has been written to ${path.join(root, "sdk", language)}`);
  fs.renameSync(path.join(root, "sdk", language), out);
  fs.rmSync(root, { recursive: true, force: true });
}

/**
 * The virtualenv with PyPI's `pulumi` (kept in git-ignored .pulumi-cli/venv between runs) and the
 * environment that activates it: the v3.68.0 Python host ignores `runtime.options.virtualenv` and runs
 * the `python` it finds first on PATH.
 */
export function pythonVenv(): { python: string; env: NodeJS.ProcessEnv } {
  const python = path.join(VENV, "bin", "python");
  const marker = path.join(VENV, `${PYPI_PULUMI}.installed`);
  if (!fs.existsSync(marker)) {
    // Built aside and renamed into place: test files run in parallel, and either may get here first.
    const aside = `${VENV}.${process.pid}`;
    run("python3", ["-m", "venv", aside]);
    run(path.join(aside, "bin", "python"), [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      PYPI_PULUMI,
    ]);
    fs.writeFileSync(path.join(aside, path.basename(marker)), "");
    if (fs.existsSync(marker)) {
      fs.rmSync(aside, { recursive: true, force: true }); // the other file's is in place (and in use)
    } else {
      fs.rmSync(VENV, { recursive: true, force: true }); // a stale, unfinished one
      fs.renameSync(aside, VENV);
    }
  }
  const env = {
    VIRTUAL_ENV: VENV,
    PATH: cliPath(path.join(VENV, "bin")),
    PYTHONDONTWRITEBYTECODE: "1",
  };
  return { python, env };
}

/**
 * Installs a generated Python SDK into a folder of the caller's own (`target`), for PYTHONPATH: the shared
 * virtualenv stays as built, so test files running side by side never reinstall under each other.
 * Installed (not just put on the path), the SDK has the package metadata its version lookup reads.
 */
export function pipInstall(python: string, sdkDir: string, target: string): NodeJS.ProcessEnv {
  run(python, [
    "-m",
    "pip",
    "install",
    "--quiet",
    "--disable-pip-version-check",
    "--no-deps",
    "--target",
    target,
    sdkDir,
  ]);
  return { PYTHONPATH: target };
}

/** The ````lang```` block under `## heading` of docs/fleets.md (its Fleet program in that language). */
export function fleetsDocBlock(heading: string, lang: string): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "fleets.md"), "utf8");
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  const block = section?.match(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``))?.[1];
  if (!block) throw new Error(`docs/fleets.md has no \`\`\`${lang} block under "## ${heading}"`);
  return block;
}

/** What docs/fleets.md's programs make: 2 + 1 ready `arena` servers (Atlanta, Frankfurt), nothing else live. */
export function expectDocsFleet(emulator: RunningEmulator): void {
  const game = emulator.fixture.games[0];
  const bySlug = (slug: string) => game?.datacenters.find((d) => d.slug === slug)?.id;
  const live = liveServers(emulator);
  expect(live.filter((s) => s.datacenter === bySlug("us-east-atl"))).toHaveLength(2);
  expect(live.filter((s) => s.datacenter === bySlug("eu-central-fra"))).toHaveLength(1);
  expect(live.every((s) => s.tags.role === "arena" && s.started_at !== undefined)).toBe(true);
}
