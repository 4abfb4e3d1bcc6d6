/**
 * The `gamehost` command line, without a Pulumi CLI: `--interval` parsing, and a bad option value is a
 * usage error (one line naming the flag and the allowed form, exit 2, like an unknown flag) raised before
 * any stack is opened. The compiled bin is spawned in a folder that is no Pulumi project: had it got as
 * far as opening the stack, it would say so and exit 1.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/reconcile/errors";
import { INTERVAL_FORM, parseInterval } from "../../src/reconcile/reconcile";
import { REPO_ROOT } from "../support/dist";
import { GAMEHOST_BIN } from "./helpers";

describe("--interval", () => {
  it.each([
    ["5s", 5_000],
    ["30", 30_000],
    ["1.5s", 1_500],
    ["1000ms", 1_000],
    ["5m", 300_000],
    [" 2m ", 120_000],
    ["24h", 86_400_000],
  ])("%j is %d ms", (text, ms) => {
    expect(parseInterval(text)).toBe(ms);
  });

  it.each(["soon", "0s", "0", "999ms", "-5s", "5 s", "5d", "", "25h", "1e3"])(
    "%j is a usage error naming the flag and the allowed form",
    (text) => {
      expect(() => parseInterval(text)).toThrow(UsageError);
      expect(() => parseInterval(text)).toThrow(
        `--interval ${JSON.stringify(text)}: expected ${INTERVAL_FORM}`,
      );
    },
  );
});

describe("usage errors of the gamehost bin exit 2 before anything runs", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-usage-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [GAMEHOST_BIN, ...args], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      // No CLI is needed: PATH holds only node's folder.
      env: { ...process.env, PATH: path.dirname(process.execPath) },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it.each([
    [["reconcile", "--interval", "soon"], `gamehost reconcile: --interval "soon": expected ${INTERVAL_FORM}`],
    [
      ["reconcile", "--once", "--interval", "0s"],
      `gamehost reconcile: --interval "0s": expected ${INTERVAL_FORM}`,
    ],
    [["adopt", "--game", "g"], "gamehost adopt: --game and --environment are required"],
    [
      ["sweep", "--game", "g", "--environment", "e", "--tag", "role"],
      'gamehost sweep: --tag "role": expected KEY=VALUE',
    ],
    [["drift", "--stack", "a", "--stack", "b"], "gamehost drift: --stack is given more than once"],
    // Another command's option: ignored, it would change nothing the user asked for (sweep names stacks with
    // --stack), or run what they did not (drift --remediate).
    [
      ["sweep", "--game", "g", "--environment", "e", "--other-stack", "org/p/s"],
      "gamehost sweep: --other-stack is not an option of sweep",
    ],
    [["drift", "--remediate"], "gamehost drift: --remediate is not an option of drift"],
    [["repair", "--yes"], "gamehost repair: --yes is not an option of repair"],
    [
      ["sweep", "--game", "space-race", "--environment", "e1000000-0000-4000-8000-000000000001"],
      `gamehost sweep: --game "space-race": expected the game's id, a UUID (getEnvironment's gameId), not its name`,
    ],
    [
      ["adopt", "--game", "9a000000-0000-4000-8000-000000000001", "--environment", "prod"],
      `gamehost adopt: --environment "prod": expected the environment's id, a UUID (getEnvironment's environmentId), not its name`,
    ],
  ])("%j", (args, message) => {
    const r = run(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
    expect(lines[0]).toMatch(/\(see gamehost \w+ --help\)$/);
  });

  it("an unknown flag exits 2 too, and a good interval gets as far as the stack (exit 1: no project)", () => {
    const unknown = run(["reconcile", "--bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
    const good = run(["reconcile", "--once", "--interval", "5s"]);
    expect(good.code).toBe(1);
    expect(good.stderr.trim()).toBe(
      `gamehost reconcile: ${fs.realpathSync(dir)} is no Pulumi project (no Pulumi.yaml): pass the project's folder with --cwd`,
    );
  });

  // Node's own parse error ("Unknown option '--bogus'. To specify a positional argument starting with a
  // '-', …") named neither the command nor the options it takes.
  it.each([
    [
      ["drift", "--bogus"],
      "gamehost drift: unknown option --bogus (options of drift: --other-stack, --cwd, --stack, --json, -h/--help) (see gamehost drift --help)",
    ],
    [
      ["--stack", "prod", "sweep", "-s", "x"],
      "gamehost sweep: unknown option -s (options of sweep: --game, --environment, --tag, --delete, --yes, --cwd, --stack, --json, -h/--help) (see gamehost sweep --help)",
    ],
    [
      ["--verbose"],
      "gamehost: unknown option --verbose (commands: drift, repair, reconcile, adopt, sweep) (see gamehost --help)",
    ],
    [
      ["drift", "--version"],
      "gamehost drift: --version is not an option of drift (options of drift: --other-stack, --cwd, --stack, --json, -h/--help) (see gamehost drift --help)",
    ],
    [
      ["repair", "--stack"],
      "gamehost repair: --stack takes a value: --stack NAME (see gamehost repair --help)",
    ],
  ])("%j: one line naming the command, the option and the options it takes", (args, line) => {
    const r = run(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${line}\n`);
  });

  it("--version prints the package's version alone, exit 0", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    const r = run(["--version"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`gamehost ${version}\n`);
  });

  it("--help names the exit codes and the interval's form", () => {
    const main = run(["--help"]);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/Exit codes: 0 done \(no drift\), 1 error, 2 usage/);
    const reconcile = run(["reconcile", "--help"]);
    expect(reconcile.code).toBe(0);
    expect(reconcile.stdout).toContain("--interval D   time between passes, from 1s to 24h");
    expect(reconcile.stdout).toContain("2 usage (a bad --interval, before\nany pass)");
  });
});

describe("docs/reconcile.md: the command line is the interface", () => {
  it("says the package exports no reconcile subpath, and it exports none", () => {
    const root = path.join(__dirname, "..", "..");
    const doc = fs.readFileSync(path.join(root, "docs", "reconcile.md"), "utf8");
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    expect(doc).toMatch(/has\s+no `reconcile` subpath/);
    expect(Object.keys(pkg.exports).filter((k) => k.includes("reconcile"))).toEqual([]);
  });
});
