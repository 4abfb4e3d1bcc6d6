/**
 * Every kind and data source of src/kinds/ has every face: a kind added to the definitions but missing
 * from a face (or a face left over from a removed kind) fails here, naming the face. The faces are
 * generated (`npm run generate`), so the usual fix is to run it; the README's "Adding a kind" lists the rest.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, requireFromRepo } from "../support/dist";

type Kinds = typeof import("../../src/kinds");
type Registry = typeof import("../../src/plugin/registry");

const fromDist = <T>(...parts: string[]) => requireFromRepo(path.join(REPO_ROOT, "dist", ...parts)) as T;
const { KINDS, FUNCTIONS } = fromDist<Kinds>("kinds", "index.js");
const registry = fromDist<Registry>("plugin", "registry.js");
/** The generated dynamic module: its `<kind>Provider` objects are the shims stored in state. */
const shims = fromDist<Record<string, { check?: unknown } | undefined>>(
  "dynamic",
  "generated",
  "resources.js",
);
const pkg = requireFromRepo("pulumi-gamehost") as Record<string, unknown> & {
  native: Record<string, unknown>;
};
const pulumi = requireFromRepo("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
};
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "plugin", "schema.json"), "utf8")) as {
  resources: Record<string, unknown>;
  functions: Record<string, unknown>;
};
const referencePages = readdirSync(path.join(REPO_ROOT, "docs", "reference"));
const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

const prototypeChain = (cls: unknown): unknown[] => {
  const chain: unknown[] = [];
  for (let p = (cls as { prototype?: object })?.prototype; p; p = Object.getPrototypeOf(p)) chain.push(p);
  return chain;
};

describe.each(KINDS.map((kind) => [kind.name, kind] as const))("the kind %s", (name, kind) => {
  const token = `gamehost:index:${name}`;

  it("has a dynamic class at the package root", () => {
    expect(prototypeChain(pkg[name]), `pulumi-gamehost exports no dynamic class ${name}`).toContain(
      pulumi.dynamic.Resource.prototype,
    );
  });

  it("has a shim that loads its host module through a package subpath with every call", () => {
    const subpath = `./provider/${kind.hostSubpath}`;
    expect(Object.keys(manifest.exports), `package.json exports no ${subpath}`).toContain(subpath);
    const host = requireFromRepo(`pulumi-gamehost/provider/${kind.hostSubpath}`) as Record<string, unknown>;
    for (const call of ["configure", "check", "diff", "create", "read", "update", "delete"])
      expect(typeof host[call], `${subpath} exports no ${call}`).toBe("function");
    const shim = shims[`${lowerFirst(name)}Provider`];
    expect(String(shim?.check), `the shim of ${name} loads another subpath`).toContain(
      `pulumi-gamehost/provider/${kind.hostSubpath}`,
    );
  });

  it("is served by the plugin and in its schema", () => {
    expect(registry.resourceOf(token)?.kind, `the plugin serves no ${token}`).toBe(kind);
    expect(schema.resources[token], `plugin/schema.json has no ${token}`).toBeDefined();
  });

  it("has a native class", () => {
    const native = pkg.native[name] as { __pulumiType?: string } | undefined;
    expect(prototypeChain(native), `pulumi-gamehost/native exports no class ${name}`).toContain(
      pulumi.CustomResource.prototype,
    );
    expect(native?.__pulumiType).toBe(token);
  });

  it("has a reference page", () => {
    expect(referencePages, `docs/reference has no ${kebab(name)}.md`).toContain(`${kebab(name)}.md`);
  });
});

describe.each(Object.values(FUNCTIONS).map((f) => [f.name] as const))("the data source %s", (name) => {
  it("has both forms on both faces, a schema entry and a reference page", () => {
    for (const fn of [name, `${name}Output`]) {
      expect(typeof pkg[fn], `pulumi-gamehost exports no ${fn}`).toBe("function");
      expect(typeof pkg.native[fn], `pulumi-gamehost/native exports no ${fn}`).toBe("function");
    }
    expect(registry.functionOf(`gamehost:index:${name}`), `the plugin serves no ${name}`).toBeDefined();
    expect(schema.functions[`gamehost:index:${name}`], `plugin/schema.json has no ${name}`).toBeDefined();
    expect(referencePages).toContain(`${kebab(name)}.md`);
  });
});

describe("no face outlives its kind", () => {
  it("every resource of the schema and every shim subpath is a kind's", () => {
    const tokens = KINDS.map((k) => `gamehost:index:${k.name}`);
    expect(Object.keys(schema.resources).sort()).toEqual([...tokens].sort());
    const subpaths = Object.keys(manifest.exports).filter((s) => s.startsWith("./provider/"));
    const ofKinds = KINDS.map((k) => `./provider/${k.hostSubpath}`);
    expect(
      subpaths.filter((s) => !ofKinds.includes(s)),
      "package.json exports shim subpaths of no kind: `npm run generate` never removes one (a released subpath is " +
        "`require`d from stack states); for a kind dropped before any release, delete it from `exports` and " +
        "`typesVersions` by hand",
    ).toEqual([]);
    expect(subpaths.sort()).toEqual(ofKinds.sort());
  });
});

describe("what Pulumi's generator emits", () => {
  it("registers the resource module and the package, at the package's version", () => {
    const version = String(pkg.PACKAGE_VERSION);
    const module = pulumi.runtime.getResourceModule("gamehost", "index", version);
    expect(module?.version).toBe(version);
    expect(pulumi.runtime.getResourcePackage("gamehost", version)?.version).toBe(version);
    const rebuilt = module?.construct(
      "s",
      "gamehost:index:Server",
      "urn:pulumi:dev::p::gamehost:index:Server::s",
    );
    expect((rebuilt as { __pulumiType?: string } | undefined)?.__pulumiType).toBe("gamehost:index:Server");
  });
});
