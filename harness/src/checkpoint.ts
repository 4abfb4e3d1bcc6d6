/**
 * Resource states and the JSON checkpoint file kept between runs, in the shape of Pulumi's
 * `apitype.VersionedCheckpoint` (version 3) with secrets encrypted by the passphrase crypter.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Crypter } from "./crypter";
import { isSecret, SECRET_SIG, SIG_KEY } from "./properties";
import type { JsonValue, PropertyMap } from "./proto";

/** `sdk/go/common/resource/resource_state.go: State`, the fields the harness uses. */
export interface ResourceState {
  urn: string;
  type: string;
  custom: boolean;
  /** Provider-assigned ID of a custom resource ("" for components). */
  id: string;
  /** Checked inputs (wire form: secrets wrapped). */
  inputs: PropertyMap;
  /** Outputs (wire form: secrets wrapped). */
  outputs: PropertyMap;
  parent?: string;
  /** Provider reference `<provider urn>::<provider id>`. */
  provider?: string;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  additionalSecretOutputs?: string[];
  /** Reasons from `ErrorResourceInitFailed`: the resource exists but is unhealthy. */
  initErrors?: string[];
  /** Marked for deletion (the old half of a create-before-delete replacement). */
  delete?: boolean;
  /** Read with `CustomResource.get`: not managed by Pulumi. */
  external?: boolean;
  protect?: boolean;
  retainOnDelete?: boolean;
  /** The id it was imported with (`import` option): a later run with the same id does not import again. */
  importId?: string;
  /** `customTimeouts` in seconds, kept so a later delete (a destroy) honours them. */
  customTimeouts?: { create?: number; update?: number; delete?: number };
}

/** Root resource type, `sdk/nodejs/runtime/stack.ts: rootPulumiStackTypeName`. */
export const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";

/** The checkpoint file as written to disk (secrets as `{sig, ciphertext}`). */
export interface CheckpointFile {
  version: 3;
  checkpoint: {
    stack: string;
    latest: {
      manifest: { time: string; magic: string; version: string };
      secrets_providers: { type: "passphrase"; state: { salt: string } };
      resources: Array<Omit<ResourceState, "inputs" | "outputs"> & { inputs: JsonValue; outputs: JsonValue }>;
      pending_operations: never[];
    };
  };
}

/**
 * `pkg/resource/stack/deployment.go: SerializePropertyValue` — a secret becomes
 * `{sig: secret, ciphertext: Encrypt(JSON(serialized element))}`.
 */
function serializeValue(value: JsonValue, crypter: Crypter): JsonValue {
  if (isSecret(value)) {
    const inner = serializeValue(value.value, crypter);
    return { [SIG_KEY]: SECRET_SIG, ciphertext: crypter.encrypt(JSON.stringify(inner)) };
  }
  if (Array.isArray(value)) return value.map((v) => serializeValue(v, crypter));
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = serializeValue(v, crypter);
    return out;
  }
  return value;
}

/** `pkg/resource/stack/deployment.go: DeserializePropertyValue` — decrypts `{sig, ciphertext}`. */
function deserializeValue(value: JsonValue, crypter: Crypter): JsonValue {
  if (Array.isArray(value)) return value.map((v) => deserializeValue(v, crypter));
  if (value !== null && typeof value === "object") {
    if (value[SIG_KEY] === SECRET_SIG && typeof value.ciphertext === "string") {
      const inner = JSON.parse(crypter.decrypt(value.ciphertext)) as JsonValue;
      return { [SIG_KEY]: SECRET_SIG, value: deserializeValue(inner, crypter) };
    }
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = deserializeValue(v, crypter);
    return out;
  }
  return value;
}

/** URNs a resource must come after: parent, provider, dependencies, property dependencies. */
export function prerequisitesOf(state: ResourceState): string[] {
  const urns = new Set<string>(state.dependencies);
  for (const deps of Object.values(state.propertyDependencies)) for (const urn of deps) urns.add(urn);
  if (state.parent) urns.add(state.parent);
  if (state.provider) urns.add(providerUrnOf(state.provider));
  return [...urns];
}

/** The URN half of a provider reference `<urn>::<id>`. */
export function providerUrnOf(ref: string): string {
  const at = ref.lastIndexOf("::");
  return at < 0 ? ref : ref.slice(0, at);
}

/**
 * A stable topological order (prerequisites first), as `pkg/resource/deploy/snapshot.go: VerifyIntegrity`
 * requires of a snapshot; states whose prerequisites are missing keep their relative position.
 */
export function sortByDependencies(states: readonly ResourceState[]): ResourceState[] {
  const byUrn = new Map<string, ResourceState[]>();
  for (const s of states) byUrn.set(s.urn, [...(byUrn.get(s.urn) ?? []), s]);
  const placed = new Set<ResourceState>();
  const visiting = new Set<ResourceState>();
  const out: ResourceState[] = [];
  const visit = (s: ResourceState): void => {
    if (placed.has(s) || visiting.has(s)) return;
    visiting.add(s);
    for (const urn of prerequisitesOf(s)) for (const dep of byUrn.get(urn) ?? []) if (dep !== s) visit(dep);
    visiting.delete(s);
    placed.add(s);
    out.push(s);
  };
  for (const s of states) visit(s);
  return out;
}

/** Reads and decrypts a checkpoint file; `undefined` if it does not exist yet. */
export function readCheckpoint(
  file: string,
  passphrase: string,
): { resources: ResourceState[]; crypter: Crypter; raw: CheckpointFile } | undefined {
  if (!fs.existsSync(file)) return undefined;
  const raw = JSON.parse(fs.readFileSync(file, "utf8")) as CheckpointFile;
  const latest = raw.checkpoint.latest;
  const crypter = Crypter.fromState(passphrase, latest.secrets_providers.state.salt);
  const resources = latest.resources.map(
    (r): ResourceState => ({
      ...r,
      inputs: deserializeValue(r.inputs, crypter) as PropertyMap,
      outputs: deserializeValue(r.outputs, crypter) as PropertyMap,
    }),
  );
  return { resources, crypter, raw };
}

/** Encrypts secrets and writes the checkpoint atomically (write + rename). */
export function writeCheckpoint(
  file: string,
  stackName: string,
  resources: readonly ResourceState[],
  crypter: Crypter,
): CheckpointFile {
  const body: CheckpointFile = {
    version: 3,
    checkpoint: {
      stack: stackName,
      latest: {
        manifest: { time: new Date().toISOString(), magic: "pulumi-gamehost-harness", version: "3.248.0" },
        secrets_providers: { type: "passphrase", state: { salt: crypter.saltState } },
        resources: resources.map((r) => ({
          ...r,
          inputs: serializeValue(r.inputs, crypter),
          outputs: serializeValue(r.outputs, crypter),
        })),
        pending_operations: [],
      },
    },
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  // Compact, as the engine's file backend writes it (pkg/backend/diy: compactJSONMarshaler, since
  // pulumi/pulumi#22245): checkpoint sizes measured here are the sizes users store.
  fs.writeFileSync(tmp, JSON.stringify(body));
  fs.renameSync(tmp, file);
  return body;
}
