import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const CLI = path.resolve(__dirname, "../../dist/emulator/cli.js");

let child: ChildProcess | undefined;
afterEach(async () => {
  const proc = child;
  child = undefined;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  // SIGTERM, so the emulator removes its temporary export directory on the way out.
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
});

/** Starts the CLI and collects stdout until `pattern` shows up. */
function startCli(args: string[], pattern: RegExp): Promise<{ proc: ChildProcess; out: () => string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const proc = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  child = proc;
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`CLI did not print ${pattern}: ${out}`)), 10_000);
    proc.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve({ proc, out: () => out });
      }
    });
    proc.on("exit", (code) => reject(new Error(`CLI exited with ${code}: ${out}`)));
  });
}

describe("gamehost-emulator CLI", () => {
  it("starts on a free port, prints the URL and tokens, serves, and stops on SIGTERM", async () => {
    const { proc, out } = await startCli(["--port", "0", "--placement-delay", "10"], /Press Ctrl\+C/);
    // docs/testing.md: a script started with --port 0 reads the URL from the first line.
    const url = /^gamehost emulator \S+ listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out())?.[1];
    expect(url).toBeDefined();
    const token = /user\s+(\S+)/.exec(out())?.[1];
    expect(out()).toContain("curl -H");
    expect(out()).toMatch(/otherUser\s+\S+/);
    expect(out()).toMatch(/cloud\s+\S+/);
    const res = await fetch(`${url}/cloud/games`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => proc.on("exit", resolve));
    proc.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("serves admin routes only with --admin, to holders of the admin token it prints", async () => {
    const { out } = await startCli(["--admin"], /Press Ctrl\+C/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out())?.[1];
    const adminToken = /admin token (\S+)/.exec(out())?.[1];
    expect(adminToken).toMatch(/^emu_admin_/);
    const inject = (headers: Record<string, string>) =>
      fetch(`${url}/__admin/faults`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ kind: "error_500", path: "/cloud/bootstrap" }),
      });
    expect((await inject({})).status).toBe(401);
    const res = await inject({ authorization: `Bearer ${adminToken}` });
    expect(res.status).toBe(200);
    expect((await fetch(`${url}/cloud/bootstrap`)).status).toBe(500);
    expect((await fetch(`${url}/cloud/bootstrap`)).status).toBe(200);
  });

  it("serves the dashboard with --dashboard, printing its URL and the admin token to sign in with", async () => {
    const { out } = await startCli(["--dashboard"], /Press Ctrl\+C/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out())?.[1];
    expect(out()).toMatch(/admin token emu_admin_\S+/);
    const dashboard = /Dashboard: (\S+)/.exec(out())?.[1];
    expect(dashboard).toBe(`${url}/__dashboard/`);
    const page = await fetch(dashboard ?? "");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form id="login-form"');
  });

  it("rejects bad flags with a clear message and exit code 2", () => {
    for (const args of [["--bogus"], ["--port", "http"], ["--port", "70000"], ["stray"]]) {
      const result = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("Usage: gamehost-emulator");
    }
    const bad = spawnSync(process.execPath, [CLI, "--port", "http"], { encoding: "utf8" });
    expect(bad.stderr).toContain("--port must be an integer");
    // A negative number is named with the range, not as parseArgs' "argument is ambiguous … did you forget
    // to specify the option argument", which said the value was missing.
    const negative = spawnSync(process.execPath, [CLI, "--placement-delay", "-1"], { encoding: "utf8" });
    expect(negative.status).toBe(2);
    expect(negative.stderr).toContain('--placement-delay must be an integer from 0 to 86400000, got "-1"');
    expect(negative.stderr).not.toContain("ambiguous");
  });

  it("names a taken port and how to get a free one", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const result = spawnSync(process.execPath, [CLI, "--port", String(port)], { encoding: "utf8" });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`port ${port} is taken: pass --port 0 for a free one`);
    } finally {
      taken.close();
    }
  });

  it("fails at start, naming --export-dir, on a folder it cannot make (under /proc Node's mkdir -p loops)", () => {
    // A hang guard: before, it started, and hung in the first export (and then ignored SIGTERM).
    const result = spawnSync(process.execPath, [CLI, "--export-dir", "/proc/gamehost-nope/exports"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect([result.status, result.signal]).toEqual([1, null]);
    expect(result.stderr).toContain(
      "exportDir (--export-dir) /proc/gamehost-nope/exports cannot be made (ENOENT)",
    );
  });

  it("stops cleanly when whatever read its output has gone (`gamehost-emulator | head -20`)", async () => {
    const { proc } = await startCli([], /Press Ctrl\+C/);
    let stderr = "";
    proc.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", resolve));
    proc.stdout?.destroy(); // the reader of the pipe ends, as `head` does once it has its lines
    proc.kill("SIGTERM");
    // Before: "Received SIGTERM, stopping…" met the closed pipe: an unhandled EPIPE, a stack trace, exit 1.
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|at /);
  });

  it("leaves nothing in the temporary folder when killed before any export (a CI job's kill -9)", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-tmpdir-"));
    try {
      const proc = spawn(process.execPath, [CLI], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, TMPDIR: tmp },
      });
      child = proc;
      await new Promise<void>((resolve) =>
        proc.stdout?.on("data", (c: Buffer) => c.toString().includes("Press Ctrl+C") && resolve()),
      );
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGKILL");
      await exited;
      // Before: its export folder, made at start, stayed: one gamehost-emulator-exports-* per killed run.
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("prints only the token roles the user's own fixture has", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-own-fixture-"));
    try {
      const fixture = JSON.parse(
        readFileSync(path.resolve(__dirname, "../../fixtures/default.json"), "utf8"),
      );
      fixture.tokens = fixture.tokens.filter(
        (t: { role?: string }) => t.role !== "otherUser" && t.role !== "expired",
      );
      const file = path.join(dir, "mygame.json");
      writeFileSync(file, JSON.stringify(fixture));
      const { out } = await startCli(["--fixture", file], /Press Ctrl\+C/);
      // Before: "  otherUser      (not in the main game's group)" and "  expired     ", with no token.
      expect(out()).toMatch(/^ {2}user {8}emu_user_alice$/m);
      expect(out()).not.toMatch(/otherUser|expired/);
      child?.kill("SIGTERM");
      // A fixture of cloud tokens only: the provider is pointed at it with one of them. Before, the banner
      // said `export GAMEHOST_TOKEN=` and `curl -H "Authorization: Bearer "`, empty.
      fixture.tokens = fixture.tokens.filter((t: { kind: string }) => t.kind === "cloud");
      writeFileSync(file, JSON.stringify(fixture));
      const cloudOnly = await startCli(["--fixture", file], /Press Ctrl\+C/);
      expect(cloudOnly.out()).toMatch(/^ {2}export GAMEHOST_TOKEN=emu_cloud_space_race$/m);
      expect(cloudOnly.out()).not.toMatch(/Bearer "|TOKEN=$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("prints a fixture's display names with their terminal controls escaped, not obeyed", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-hostile-name-"));
    try {
      const fixture = JSON.parse(
        readFileSync(path.resolve(__dirname, "../../fixtures/default.json"), "utf8"),
      );
      // Clear the screen, set the window title, and reverse what follows: each would act on the terminal.
      fixture.games[0].displayName = "Space\u001b[2J Race\u001b]0;owned\u0007 \u202eecaR";
      const file = path.join(dir, "hostile.json");
      writeFileSync(file, JSON.stringify(fixture));
      const { out } = await startCli(["--fixture", file], /Press Ctrl\+C/);
      expect(out()).toContain("(game Space\\u001b[2J Race\\u001b]0;owned\\u0007 \\u202eecaR,");
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be printed.
      expect(out()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202e]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("prints help, and fails clearly on a bad fixture file", () => {
    const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    expect([help.status, help.stdout.includes("--rate-limit")]).toEqual([0, true]);
    const bad = spawnSync(process.execPath, [CLI, "--fixture", "/nonexistent/fixture.json"], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("/nonexistent/fixture.json");
  });
});

describe("gamehost-emulator CLI: a CI script's first mistakes", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8", timeout: 30_000 });

  it("refuses an empty --state, --export-dir or --fixture (an unset variable) instead of keeping nothing", () => {
    // Before, `--state ""` started with no state kept, and its exports went to `.exports` in the working folder;
    // `--fixture ""` said "Cannot read fixture file : ENOENT".
    for (const [flag, name] of [
      ["--state", "stateFile"],
      ["--export-dir", "exportDir"],
      ["--fixture", "fixture"],
    ] as const) {
      const result = run([flag, ""]);
      expect([result.status, result.signal], flag).toEqual([1, null]);
      expect(result.stderr).toContain(`${name} (${flag}) must name a path, got ""`);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("fails at start when --export-dir (or FILE.exports) is a file, rather than answering every export 503", () => {
    const file = path.join(dir, "not-a-folder");
    writeFileSync(file, "");
    const result = run(["--export-dir", file]);
    expect([result.status, result.signal]).toEqual([1, null]);
    expect(result.stderr).toContain(`exportDir (--export-dir) ${file} is not a folder`);
    writeFileSync(path.join(dir, "s.json.exports"), "");
    const beside = run(["--state", path.join(dir, "s.json")]);
    expect(beside.status).toBe(1);
    expect(beside.stderr).toContain(`${path.join(dir, "s.json.exports")} is not a folder`);
  });

  it('takes an empty state file (`--state "$(mktemp)"`) as a new state, and names a newer version\'s file', async () => {
    const empty = path.join(dir, "mktemp.json");
    writeFileSync(empty, "");
    const { proc } = await startCli(["--state", empty], /Press Ctrl\+C/);
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
    expect(JSON.parse(readFileSync(empty, "utf8"))).toMatchObject({ version: 1, servers: [] });

    const newer = path.join(dir, "newer.json");
    writeFileSync(newer, JSON.stringify({ version: 2, generation: 0, secret: "s".repeat(64), servers: [] }));
    const result = run(["--state", newer]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /a newer pulumi-gamehost wrote it \(state format 2; this one, \S+, reads format 1\)/,
    );
    expect(readFileSync(newer, "utf8")).toContain('"version":2');
  });

  it.runIf(process.getuid?.() === 0)(
    "says that a port below 1024 needs privileges, run as a user without them",
    () => {
      // As root any port binds: the user who meets this is `nobody` here.
      const result = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, CLI, "--port", "80"], {
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(result.status, result.stderr).toBe(1);
      expect(result.stderr).toContain("ports below 1024 need privileges this user lacks: pass --port 0");
    },
  );

  it("says why an export URL of an earlier start without --state is refused", async () => {
    const exportUrl = async () => {
      const { proc, out } = await startCli([], /Press Ctrl\+C/);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out())?.[1];
      const game = /cloud\s+\S+\s+\(game [^,]+, (\S+)\)/.exec(out())?.[1];
      const res = await fetch(`${url}/cloud/games/${game}/matchmaker/lobbies/export-history`, {
        method: "POST",
        headers: { authorization: `Bearer ${/user\s+(\S+)/.exec(out())?.[1]}` },
        body: JSON.stringify({ query_start: 0, query_end: Date.now() }),
      });
      return { proc, url: ((await res.json()) as { url: string }).url };
    };
    const first = await exportUrl();
    const stopped = new Promise((resolve) => first.proc.once("exit", resolve));
    first.proc.kill("SIGTERM");
    await stopped;
    const second = await exportUrl();
    const stale = new URL(first.url);
    const res = await fetch(`${new URL(second.url).origin}${stale.pathname}${stale.search}`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain(
      "a URL of an earlier start no longer works; keep them with --state FILE",
    );
  });

  it("tells a stale admin token (of an earlier start) from a missing one", async () => {
    const { out } = await startCli(["--admin"], /Press Ctrl\+C/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out())?.[1];
    const faults = (headers: Record<string, string>) =>
      fetch(`${url}/__admin/faults`, { headers }).then(async (r) => ({
        status: r.status,
        message: ((await r.json()) as { message: string }).message,
      }));
    expect(await faults({})).toMatchObject({
      status: 401,
      message: expect.stringContaining("need the admin token"),
    });
    expect(
      await faults({ authorization: "Bearer emu_admin_ofAnEarlierStartOfTheEmulator000" }),
    ).toMatchObject({
      status: 401,
      message: expect.stringContaining("each start makes a new one (was the emulator restarted?)"),
    });
  });
});
