/**
 * A nested property's check failure quotes what was given: the CLI prints a nested value as `{<nil>}`
 * (the engine looks up top-level properties only), so the reason is where the user sees it. Strings are
 * quoted and cut; a user's own values (environment, tags, arguments) and secrets are never quoted, and the
 * dynamic face (which cannot tell secrets) quotes no string.
 */
import { describe, expect, it } from "vitest";
import { dynamicHostModule } from "../../src/dynamic/hostModule";
import { MAX_GIVEN_CHARS } from "../../src/kinds/checks";
import { serverKind } from "../../src/kinds/server/implementation";
import { checkServerInputs } from "../../src/kinds/server/spec";
import { SECRET_SIG, SIG_KEY } from "../../src/plugin/propertyValues";
import { withoutSecretGivens } from "../../src/plugin/secretGivens";
import { SAMPLE_ID, SAMPLE_SERVER_INPUTS } from "../support/serverInputs";

const ID = SAMPLE_ID;

function spec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...structuredClone(SAMPLE_SERVER_INPUTS), ...overrides };
}

const reasonOf = (news: Record<string, unknown>, property: string) =>
  checkServerInputs(news).find((f) => f.property === property)?.reason;

describe("a nested string in a check failure", () => {
  it("is quoted after the reason, as numbers and booleans are", () => {
    const protocol = reasonOf(
      spec({ network: { ports: { web: { protocol: "htp", internalPort: 8080 } } } }),
      "network.ports.web.protocol",
    );
    expect(protocol).toMatch(/ \(given: "htp"\)$/);
    expect(reasonOf(spec({ runtime: { build: "latest" } }), "runtime.build")).toMatch(
      / \(given: "latest"\)$/,
    );
    expect(reasonOf(spec({ resources: { cpu: -1, memory: 512 } }), "resources.cpu")).toMatch(
      / \(given: -1\)$/,
    );
  });

  it("is cut to a few dozen characters", () => {
    const long = `x${"y".repeat(500)}`;
    const reason = reasonOf(spec({ runtime: { build: long } }), "runtime.build") ?? "";
    expect(reason).toContain(`(given: "${long.slice(0, MAX_GIVEN_CHARS)}…")`);
    expect(reason.length).toBeLessThan(200);
  });

  it("is never quoted where a user's own values live (environment, tags, arguments)", () => {
    const failures = checkServerInputs(
      spec({
        runtime: {
          build: ID,
          environment: { API_KEY: ["sk_live_secret"] },
          arguments: ["--key", ["sk_live_2"]],
        },
        tags: { role: ["sk_live_3"] },
      }),
    );
    expect(failures.length).toBeGreaterThan(0);
    expect(JSON.stringify(failures)).not.toMatch(/sk_live|given/);
  });

  it("is cut from a failure at or below a secret input by the plugin", () => {
    const failures = [
      { property: "runtime.build", reason: 'must be a UUID (given: "abc")' },
      { property: "network.ports.web.protocol", reason: 'must be one of … (given: "htp")' },
    ];
    const wire = {
      runtime: { [SIG_KEY]: SECRET_SIG, value: { build: "abc" } },
      network: { ports: { web: { protocol: "htp" } } },
    };
    expect(withoutSecretGivens(failures, wire)).toEqual([
      { property: "runtime.build", reason: "must be a UUID" },
      failures[1],
    ]);
  });

  it("is never quoted by the dynamic face, which gets secrets as plain values", async () => {
    const secret = "s3cr3t-not-a-uuid-TOKEN-abcdef";
    const { failures } = await dynamicHostModule(serverKind).check(
      {},
      spec({ runtime: { build: secret }, resources: { cpu: -1, memory: 512 } }),
    );
    expect(failures.find((f) => f.property === "runtime.build")?.reason).toMatch(/^must be a UUID/);
    expect(JSON.stringify(failures)).not.toContain(secret.slice(0, 10));
    // A number says nothing secret a string could: it is still given.
    expect(failures.find((f) => f.property === "resources.cpu")?.reason).toMatch(/ \(given: -1\)$/);
  });
});
