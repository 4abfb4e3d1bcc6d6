import { describe, expect, it } from "vitest";
import {
  Engine,
  type Goal,
  type ProviderHost,
  type ProviderSource,
  type ResourceState,
  Stack,
  StepError,
} from "../../harness/src";
import { STORE_PROGRAM } from "./helpers";

// The engine's `parallel` option (`pulumi up/destroy --parallel`), driven with an in-process stand-in for the
// provider host: no child process, so the limits can be checked exactly and quickly.

const TYPE = "pulumi-nodejs:dynamic:Resource";
const PROVIDER_URN = "urn:pulumi:dev::p::pulumi:providers:pulumi-nodejs::default";
const urnOf = (name: string) => `urn:pulumi:dev::p::${TYPE}::${name}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A provider host stand-in that records how many Create/Delete calls overlap, and their order. */
function fakeHost(opts: { callMs: number; failDelete?: string }) {
  let inFlight = 0;
  // `timeline`: "start <urn>" / "end <urn>" of every Delete, in the order they happened.
  const seen = { maxInFlight: 0, creates: [] as string[], deletes: [] as string[], timeline: [] as string[] };
  const enter = () => {
    inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
  };
  const host = {
    check: async (args: { news: Record<string, unknown> }) => ({ inputs: args.news, failures: [] }),
    create: async (args: { urn: string; properties: Record<string, unknown> }) => {
      enter();
      await sleep(opts.callMs);
      inFlight--;
      seen.creates.push(args.urn);
      return { id: `id-${args.urn.split("::").pop()}`, properties: args.properties };
    },
    delete: async (args: { urn: string }) => {
      enter();
      seen.timeline.push(`start ${args.urn}`);
      await sleep(opts.callMs);
      inFlight--;
      seen.timeline.push(`end ${args.urn}`);
      if (args.urn === opts.failDelete) throw new Error("delete refused");
      seen.deletes.push(args.urn);
    },
  } as unknown as ProviderHost;
  const protocol = { acceptSecrets: false, acceptResources: false, supportsPreview: false };
  const configured = { host, protocol };
  const provider: ProviderSource = {
    defaultInputs: () => ({}),
    check: async (_urn, _olds, news) => ({ inputs: news, failures: [] }),
    diff: async () => ({ changes: "none", replaces: [], stables: [], diffs: [], deleteBeforeReplace: false }),
    configure: async () => configured,
    get: async () => configured,
  };
  return { seen, provider };
}

function goal(name: string): Goal {
  return {
    type: TYPE,
    name,
    custom: true,
    properties: { n: name },
    dependencies: [],
    propertyDependencies: {},
    ignoreChanges: [],
    replaceOnChanges: [],
    additionalSecretOutputs: [],
    provider: "",
  };
}

function oldState(name: string, dependsOn: string[] = []): ResourceState {
  return {
    urn: urnOf(name),
    type: TYPE,
    custom: true,
    id: `id-${name}`,
    inputs: { n: name },
    outputs: { n: name },
    provider: `${PROVIDER_URN}::p1`,
    dependencies: dependsOn.map(urnOf),
    propertyDependencies: {},
  };
}

const providerState: ResourceState = {
  urn: PROVIDER_URN,
  type: "pulumi:providers:pulumi-nodejs",
  custom: true,
  id: "p1",
  inputs: {},
  outputs: {},
  dependencies: [],
  propertyDependencies: {},
};

function engine(provider: ReturnType<typeof fakeHost>["provider"], olds: ResourceState[], parallel?: number) {
  return new Engine({
    project: "p",
    stack: "dev",
    preview: false,
    olds,
    providers: provider,
    diagnostics: [],
    ...(parallel !== undefined ? { parallel } : {}),
  });
}

describe("engine parallel option", () => {
  it("keeps at most `parallel` creates in flight, and creates every registered resource", async () => {
    const { seen, provider } = fakeHost({ callMs: 15 });
    const names = Array.from({ length: 12 }, (_, i) => `r${i}`);
    const e = engine(provider, [], 3);

    await Promise.all(names.map((n) => e.registerResource(goal(n))));

    expect(seen.maxInFlight).toBe(3);
    expect([...seen.creates].sort()).toEqual(names.map(urnOf).sort());
  });

  it("destroys independent resources concurrently, dependents first, the provider resource last", async () => {
    const { seen, provider } = fakeHost({ callMs: 15 });
    // b depends on a; the rest are independent.
    const olds = [
      providerState,
      oldState("a"),
      oldState("b", ["a"]),
      ...["c", "d", "e", "f"].map((n) => oldState(n)),
    ];
    const e = engine(provider, olds, 4);

    await e.destroyAll();

    expect(seen.maxInFlight).toBe(4);
    expect([...seen.deletes].sort()).toEqual(["a", "b", "c", "d", "e", "f"].map(urnOf).sort());
    // a's Delete only starts once b's has finished.
    expect(seen.timeline.indexOf(`start ${urnOf("a")}`)).toBeGreaterThan(
      seen.timeline.indexOf(`end ${urnOf("b")}`),
    );
    const deleteSteps = e.steps.filter((s) => s.op === "delete").map((s) => s.urn);
    expect(deleteSteps.at(-1)).toBe(PROVIDER_URN);
    expect(e.snapshot()).toEqual([]);
  });

  it("without the option deletes one at a time, as before", async () => {
    const { seen, provider } = fakeHost({ callMs: 5 });
    const e = engine(provider, [providerState, ...["a", "b", "c"].map((n) => oldState(n))]);

    await e.destroyAll();

    expect(seen.maxInFlight).toBe(1);
    expect(seen.deletes).toHaveLength(3);
  });

  it("starts no new deletion after one fails, and keeps what it did not delete", async () => {
    const { seen, provider } = fakeHost({ callMs: 10, failDelete: urnOf("b") });
    // a depends on nothing, b depends on a: b fails, so a (waiting for b) must never be deleted.
    const e = engine(provider, [providerState, oldState("a"), oldState("b", ["a"])], 2);

    await expect(e.destroyAll()).rejects.toBeInstanceOf(StepError);

    expect(seen.timeline).not.toContain(`start ${urnOf("a")}`);
    expect(e.sawError).toBe(true);
    expect(
      e
        .snapshot()
        .map((s) => s.urn)
        .sort(),
    ).toEqual([PROVIDER_URN, urnOf("a"), urnOf("b")].sort());
  });

  it("rejects a parallel value that is not a positive integer, naming it", () => {
    const { provider } = fakeHost({ callMs: 1 });
    expect(() => engine(provider, [], 0)).toThrow("parallel must be a positive integer, got 0");
    expect(() => new Stack({ programDir: STORE_PROGRAM, parallel: 1.5 })).toThrow(
      "parallel must be a positive integer, got 1.5",
    );
  });
});
