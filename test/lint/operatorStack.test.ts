/**
 * docs/reconcile.md's Pulumi Kubernetes Operator `Stack` (the documented path past one machine) against the
 * operator's own CRD schema (test/lint/fixtures: v2.9.0's `pulumi.com/v1` Stack, descriptions removed). No
 * cluster runs here, so this is the check `kubectl apply` makes first: its default field validation is
 * strict, refusing a field the schema lacks, where the API server would otherwise drop it without a word
 * (a misspelt `resyncFrequencySecond` would leave the stack never re-run).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { sectionBlocks } from "../support/docBlocks";

type Schema = { [key: string]: unknown };

/** The CRD's schema with unknown fields refused, as strict field validation refuses them. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Schema = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, strict(v)]));
  const open = out["x-kubernetes-preserve-unknown-fields"] === true || "additionalProperties" in out;
  if (out.properties && !open) out.additionalProperties = false;
  return out;
}

const crd = JSON.parse(
  fs.readFileSync(path.join(__dirname, "fixtures", "pulumi-operator-stack-v1.schema.json"), "utf8"),
) as { schema: Schema };
// OpenAPI's `nullable` and the x-kubernetes-* markers are not JSON Schema keywords: not strict mode; nor are
// its formats (int64), which the API server checks as types.
const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(
  strict(crd.schema) as Schema,
);

const errorsOf = (manifest: unknown) =>
  validate(manifest)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);

describe("docs/reconcile.md: the Pulumi Kubernetes Operator's Stack", () => {
  const yamlBlocks = sectionBlocks("docs/reconcile.md", "Running it").filter((b) => b.lang === "yaml");

  it("is one Stack of pulumi.com/v1 whose every field the operator's CRD has", () => {
    expect(yamlBlocks).toHaveLength(1);
    const manifest = parse(yamlBlocks[0]?.text ?? "") as { apiVersion: string; kind: string };
    expect([manifest.apiVersion, manifest.kind]).toEqual(["pulumi.com/v1", "Stack"]);
    expect(errorsOf(manifest)).toEqual([]);
  });

  it("would be refused with a field misspelt, here or in its workspace's init container", () => {
    const manifest = parse(yamlBlocks[0]?.text ?? "") as {
      spec: Record<string, unknown> & {
        workspaceTemplate: {
          spec: { podTemplate: { spec: { initContainers: Array<Record<string, unknown>> } } };
        };
      };
    };
    const { resyncFrequencySeconds, ...rest } = manifest.spec;
    expect(
      errorsOf({ ...manifest, spec: { ...rest, resyncFrequencySecond: resyncFrequencySeconds } }),
    ).not.toEqual([]);
    const container = manifest.spec.workspaceTemplate.spec.podTemplate.spec.initContainers[0] ?? {};
    container.workDir = container.workingDir;
    delete container.workingDir;
    expect(errorsOf(manifest).join("\n")).toContain("additionalProperty");
  });
});
