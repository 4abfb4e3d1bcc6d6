import { describe, expect, it } from "vitest";
import { type ConfigEntry, type Diagnostic, type RunResult, Stack } from "../../harness/src";
import type { FaultSpec } from "../../src/emulator";
import { quickstartOnFace } from "../support/examples";
import {
  connectionConfig,
  FACES,
  faceConfig,
  QUICKSTART_DIR,
  quickstartConfig,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  serverArgs,
  serversEntry,
  TYPES,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("error-text");

/** Errors a user sees: engine and program diagnostics of severity error. */
const errorsOf = (result: RunResult): Diagnostic[] =>
  result.diagnostics.filter(
    (d) => d.severity === "error" && (d.source === "engine" || d.source === "program"),
  );

/** The checks every failure's text must pass. */
function expectReadable(message: string, cause: string): void {
  expect(message.split(cause).length - 1, `"${cause}" said once in: ${message}`).toBe(1);
  expect(message, "no stack trace").not.toMatch(/^\s+at .+[:(]\d+/m);
  expect(message, "no error class noise").not.toMatch(/\b(Error|GamehostConfigError|RunError):/);
  // A few lines: the engine's own `creating <urn> failed: ` prefix, then the package's cause and fix, and
  // the request and answer in brackets (what support needs: route, status, code, ray id).
  const [, ours = message] = message.split(" failed: ");
  const [causeAndFix = ""] = ours.split(" [");
  expect(causeAndFix.length, causeAndFix).toBeLessThanOrEqual(280);
  expect(message.length, message).toBeLessThanOrEqual(480);
}

const texts: Record<string, Record<string, string>> = {};

/** A failure the provider meets, how to cause it, and what its message must say. */
interface ProviderFailure {
  name: string;
  config?: Record<string, ConfigEntry>;
  placement?: "never";
  fault?: FaultSpec;
  /** Said exactly once. */
  cause: string;
  fix: string;
}

describe.each(FACES)("failures as the %s face reports them", (face) => {
  const stackOf = (
    extra: Record<string, ConfigEntry>,
    { token = true, env }: { token?: boolean; env?: Record<string, string | undefined> } = {},
  ) =>
    new Stack({
      programDir: SERVERS_PROGRAM,
      config: {
        "gamehost:baseUrl": { value: engine.emulator.url },
        ...(token ? { "gamehost:token": { value: engine.emulator.tokens.user, secret: true } } : {}),
        ...faceConfig(face),
        ...extra,
      },
      checkpointFile: engine.checkpointFile(),
      ...(env ? { env } : {}),
    });

  it("a bad argument: one error naming the property and what is allowed", async () => {
    const stack = stackOf({
      [SERVERS_KEY]: serversEntry({
        web: serverArgs(engine.emulator, { resources: { cpu: -1, memory: 256 } }),
      }),
    });

    const up = await stack.up();

    const errors = errorsOf(up);
    expect(errors).toHaveLength(1);
    const message = errors[0]?.message ?? "";
    // The real engine's words: it looks the value up by the whole path, so a nested one shows `{<nil>}`;
    // the reason gives the value.
    expect(message).toBe(
      `${TYPES[face].server} resource 'web': property resources.cpu value {<nil>} has a problem: must be a positive integer (given: -1)`,
    );
    expectReadable(message, "must be a positive integer");
    texts[face] = { ...texts[face], check: message.replace(TYPES[face].server, "<type>") };
  });

  // Failures met by the provider: each names its cause once, and the setting or step that fixes it.
  const providerFailures: ProviderFailure[] = [
    {
      name: "a rejected token",
      config: { "gamehost:token": { value: "emu_not_a_token", secret: true } },
      cause: "The token is not valid",
      fix: "`pulumi config set --secret gamehost:token <token>`",
    },
    {
      name: "a base URL where nothing answers",
      config: { "gamehost:baseUrl": { value: "http://127.0.0.1:9" } },
      cause: "Nothing answers at http://127.0.0.1:9",
      fix: "`pulumi config set gamehost:baseUrl <url>`",
    },
    {
      name: "a server that is never ready",
      placement: "never",
      cause: "was not ready after 1s",
      fix: "run `pulumi up` again to keep waiting",
    },
    {
      name: "a rate limit that outlasts the create's attempts",
      fault: {
        method: "POST",
        path: /\/servers$/,
        kind: "rate_limit",
        count: 5,
        retryAfter: "seconds" as const,
        retryAfterMs: 0,
      },
      cause: "Rate limited",
      fix: "lower the request rate",
    },
  ];

  it.each(providerFailures)("$name: one short error with the cause and the fix", async (failure) => {
    const stack = stackOf({
      [SERVERS_KEY]: serversEntry({
        web: serverArgs(engine.emulator, {
          tags: { case: `${face}-${failure.name.length}` },
          readyTimeoutSeconds: 1,
        }),
      }),
      ...(failure.config ?? {}),
    });
    if (failure.fault) engine.emulator.faults.inject(failure.fault);
    if (failure.placement) engine.emulator.setPlacement(failure.placement);
    let up: RunResult;
    try {
      up = await stack.up();
    } finally {
      engine.emulator.setPlacement("auto");
      engine.emulator.faults.clear();
    }

    const errors = errorsOf(up);
    expect(errors).toHaveLength(1);
    const message = errors[0]?.message ?? "";
    expect(message).toContain(failure.fix);
    expectReadable(message, failure.cause);
    texts[face] = { ...texts[face], [failure.name]: message.replace(TYPES[face].server, "<type>") };
  });

  it("a missing token: one error naming the config key and the environment variable", async () => {
    const stack = stackOf(
      { [SERVERS_KEY]: serversEntry({ web: serverArgs(engine.emulator) }) },
      { token: false, env: { GAMEHOST_TOKEN: undefined } },
    );

    const up = await stack.up();

    const errors = errorsOf(up);
    expect(errors).toHaveLength(1);
    const message = errors[0]?.message ?? "";
    expect(message).toContain("`pulumi config set --secret gamehost:token <value>`");
    expect(message).toContain("GAMEHOST_TOKEN");
    expectReadable(message, "is not set");
    texts[face] = { ...texts[face], token: message.replace(TYPES[face].server, "<type>") };
  });
});

describe("both faces", () => {
  it("say the same words", () => {
    // Ray ids, server ids and retry instants differ between runs; the words must not.
    const words = (texts: Record<string, string> = {}) =>
      Object.fromEntries(
        Object.entries(texts).map(([k, v]) => [
          k,
          v
            .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
            .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<instant>"),
        ]),
      );
    expect(words(texts.plugin)).toEqual(words(texts.dynamic));
    expect(Object.keys(texts.dynamic ?? {}).sort()).toEqual(
      [
        "check",
        "token",
        "a rejected token",
        "a base URL where nothing answers",
        "a server that is never ready",
        "a rate limit that outlasts the create's attempts",
      ].sort(),
    );
  });

  it("a data source in the program fails with its message alone, once for every data source", async () => {
    const { "gamehost:token": _token, ...config } = quickstartConfig(engine.emulator);
    const stack = new Stack({
      programDir: QUICKSTART_DIR,
      config,
      checkpointFile: engine.checkpointFile(),
      env: { GAMEHOST_TOKEN: undefined },
    });

    const up = await stack.up();

    const program = errorsOf(up).filter((d) => d.source === "program");
    expect(program).toHaveLength(1);
    const message = program[0]?.message ?? "";
    expect(message).toContain("GAMEHOST_TOKEN");
    expectReadable(message, "is not set");
  });
  it("a name that matches nothing: the data source's message once, however many inputs it reaches", async () => {
    const stack = new Stack({
      programDir: QUICKSTART_DIR,
      config: { ...quickstartConfig(engine.emulator), "gamehost-quickstart:game": { value: "no-such-game" } },
      checkpointFile: engine.checkpointFile(),
    });

    const up = await stack.up();

    const program = errorsOf(up).filter((d) => d.source === "program");
    expect(program).toHaveLength(1);
    const message = program[0]?.message ?? "";
    // The game's name reaches three resources' gameId: the data source's message, once and alone.
    expect(message).toBe(
      'No game "no-such-game" in the caller\'s games (available: puzzle-quest, space-race).',
    );
    expectReadable(message, "no-such-game");
  });

  it.each(FACES)(
    "a name that matches nothing in the %s face's data sources: one message, no stack trace",
    async (face) => {
      const stack = new Stack({
        programDir: quickstartOnFace(engine.root, face),
        config: {
          ...connectionConfig(engine.emulator),
          "gamehost-quickstart:game": { value: "no-such-game" },
        },
        checkpointFile: engine.checkpointFile(),
      });

      const up = await stack.up();

      // The game's id reaches two more data sources: the failure is reported once, as the message alone.
      const errors = errorsOf(up);
      expect(errors, errors.map((e) => e.message).join("\n")).toHaveLength(1);
      const message = errors[0]?.message ?? "";
      expect(message).toBe(
        'No game "no-such-game" in the caller\'s games (available: puzzle-quest, space-race).',
      );
      expectReadable(message, "no-such-game");
    },
  );
});
