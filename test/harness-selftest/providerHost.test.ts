import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError, ProviderHost, secret, UNKNOWN } from "../../harness/src";
import { removeTempDirs, tempDir } from "./helpers";

// A `__provider` text like the SDK's closure serializer produces: a module whose `handler()` returns the
// provider. Written by hand so the host is exercised without a program.
const PROVIDER_TEXT = `
exports.handler = () => ({
  async configure(req) { this.token = req.config.get("selftest:token"); },
  async check(olds, news) {
    const failures = typeof news.size === "number" ? [] : [{ property: "size", reason: "size must be a number" }];
    return { inputs: { ...news, checked: true }, failures };
  },
  async create(inputs) {
    if (inputs.size > 10) {
      throw Object.assign(new Error("too big to boot"), { id: "big-1", properties: { size: inputs.size }, reasons: ["disk full"] });
    }
    if (inputs.size < 0) throw new Error("negative size");
    return { id: "item-" + inputs.size, outs: { size: inputs.size, token: this.token } };
  },
  async read(id, props) {
    if (id === "explode") throw new Error("read exploded");
    return id === "gone" ? { id: "" } : { id, props: { size: props.size, seen: true } };
  },
  async delete() {},
});
`;

describe("ProviderHost (the SDK's dynamic provider host over gRPC)", () => {
  let host: ProviderHost;
  let protocol: Awaited<ReturnType<ProviderHost["configure"]>>;
  const urn = "urn:pulumi:dev::p::pulumi-nodejs:dynamic:Resource::x";

  beforeAll(async () => {
    host = await ProviderHost.start({ cwd: tempDir() });
    protocol = await host.configure({ "selftest:token": secret("t0k") });
  });
  afterAll(async () => {
    await host?.stop();
    removeTempDirs();
  });

  it("reports the port it listens on and the protocol the host answers to Configure", async () => {
    expect(host.port).toBeGreaterThan(0);
    // The dynamic host neither accepts secrets nor supports previews: the engine must strip and skip.
    expect(protocol).toEqual({
      acceptSecrets: false,
      acceptResources: false,
      supportsPreview: false,
    });
  });

  it("returns checked inputs with __provider kept, and check failures by property", async () => {
    const ok = await host.check({ urn, olds: {}, news: { __provider: PROVIDER_TEXT, size: 3 } });
    expect(ok).toEqual({ inputs: { __provider: PROVIDER_TEXT, size: 3, checked: true }, failures: [] });

    const bad = await host.check({ urn, olds: {}, news: { __provider: PROVIDER_TEXT, size: UNKNOWN } });
    expect(bad.failures).toEqual([{ property: "size", reason: "size must be a number" }]);
  });

  it("creates with the configuration the provider was given (secret unwrapped by the host)", async () => {
    const created = await host.create({ urn, properties: { __provider: PROVIDER_TEXT, size: 4 } });
    expect(created).toEqual({
      id: "item-4",
      properties: { size: 4, token: "t0k", __provider: PROVIDER_TEXT },
    });
  });

  it("maps ErrorResourceInitFailed to a partial failure and plain errors to a message", async () => {
    const partial = await host
      .create({ urn, properties: { __provider: PROVIDER_TEXT, size: 11 } })
      .catch((err: unknown) => err);
    expect(partial).toBeInstanceOf(ProviderError);
    expect((partial as ProviderError).message).toBe("too big to boot");
    expect((partial as ProviderError).partial).toEqual({
      id: "big-1",
      properties: { size: 11 },
      reasons: ["disk full"],
    });

    const plain = await host
      .create({ urn, properties: { __provider: PROVIDER_TEXT, size: -1 } })
      .catch((err: unknown) => err);
    expect(plain).toBeInstanceOf(ProviderError);
    expect((plain as ProviderError).message).toBe("negative size");
    expect((plain as ProviderError).partial).toBeUndefined();
  });

  it("reads live state, and an empty id for a resource that is gone", async () => {
    const props = { __provider: PROVIDER_TEXT, size: 5 };
    await expect(host.read({ urn, id: "item-5", properties: props, inputs: {} })).resolves.toMatchObject({
      id: "item-5",
      properties: { size: 5, seen: true },
    });
    await expect(host.read({ urn, id: "gone", properties: props, inputs: {} })).resolves.toMatchObject({
      id: "",
    });
  });

  it("keeps what the provider prints after the port line as diagnostics", async () => {
    const props = { __provider: PROVIDER_TEXT, size: 6 };
    await expect(host.read({ urn, id: "explode", properties: props, inputs: {} })).rejects.toThrow(
      "read exploded",
    );
    // The host logs failed reads to stderr before answering; give the pipe a moment to deliver the line.
    await expect
      .poll(() => host.output.some((l) => l.stream === "stderr" && l.text.includes("read exploded")))
      .toBe(true);
  });
});
