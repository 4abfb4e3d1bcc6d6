/**
 * Which checks are a replacement's. The engine checks a resource of the state with its old inputs, then,
 * when it replaces it, checks the same inputs again without olds, as a new resource, before it deletes
 * anything: `pulumi up --replace <urn>`, `replaceOnChanges` and `replacementTrigger` call no diff that says
 * "replace" (the first calls no diff at all), so this second check is the only call a provider gets before
 * a `deleteBeforeReplace` delete. A check without olds of a resource (or, where the face knows no URN, of
 * inputs) checked with olds earlier in this process (one provider process serves one engine run) is that
 * second check.
 */
import { createHash } from "node:crypto";
import type { OperationContext, ResourceKind } from "./kind";

/**
 * What was checked with olds in this process (URNs, or digests of given inputs where the face knows no URN),
 * and whether a diff has asked about its replacement since: the check after that diff need not ask again.
 */
const checkedWithOlds = new Map<string, boolean>();

/** The dynamic face's diff gets checked inputs, not given ones: each digest, to the key of its check. */
const keyOfChecked = new Map<string, string>();

/**
 * JSON with every object's keys sorted (the engine's maps reach a provider in no promised order) and its
 * undefined values left out, as the engine's serialization leaves them.
 */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(",")}}`;
}

/** A digest of inputs or outputs, order-blind (not kept in clear: they may hold secrets). */
export const digest = (inputs: unknown) => createHash("sha256").update(sortedJson(inputs)).digest("hex");

/** The key of one check: its URN, else a digest of its given inputs. */
const keyOf = (urn: string | undefined, news: Record<string, unknown>) =>
  urn ? `urn:${urn}` : `inputs:${digest(news)}`;

/**
 * Notes a check and says whether it is a replacement's that no diff asked about (no olds, its resource or
 * given inputs checked with olds before in this process, and no diff since asked about the replacement).
 * `checked`, the check's result, lets the dynamic face's diff find the check ({@link noteAskedByDiff}).
 */
export function isReplacementCheck(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  urn?: string,
  checked?: Record<string, unknown>,
): boolean {
  const key = keyOf(urn, news);
  if (Object.keys(olds).length > 0) {
    checkedWithOlds.set(key, false);
    if (!urn && checked) keyOfChecked.set(digest(checked), key);
    return false;
  }
  return checkedWithOlds.get(key) === false;
}

/** Notes that a diff (of the resource `urn`, or of checked inputs `news`) asked about its replacement. */
export function noteAskedByDiff(news: unknown, urn?: string): void {
  const key = urn ? `urn:${urn}` : keyOfChecked.get(digest(news));
  if (key !== undefined && checkedWithOlds.has(key)) checkedWithOlds.set(key, true);
}

/**
 * The checked inputs of resources (by URN) checked without olds in this process and not created yet. A
 * delete of one of them comes before its create: `pulumi up --replace <urn>` with `deleteBeforeReplace`,
 * whose only check has no olds (the engine ignores a targeted resource's old inputs) and which calls no
 * diff, so nothing before the delete could ask whether the create will be refused.
 */
const awaitingCreate = new Map<string, Record<string, unknown>>();

/** Notes a check's inputs: without olds, the resource's create may follow a delete of its URN. */
export function noteChecked(
  urn: string,
  olds: Record<string, unknown>,
  inputs: Record<string, unknown>,
): void {
  if (urn === "") return;
  if (Object.keys(olds).length === 0) awaitingCreate.set(urn, inputs);
  else awaitingCreate.delete(urn);
}

/** Notes a create of `urn` under way: a delete of it after this is a create-before-delete replacement's. */
export function noteCreating(urn: string): void {
  awaitingCreate.delete(urn);
}

/**
 * The inputs of the create a delete of `urn` comes before (a `deleteBeforeReplace` replacement's), else
 * undefined (a plain delete, or the replaced resource's after its replacement was created).
 */
export function createAfterDelete(urn: string): Record<string, unknown> | undefined {
  return awaitingCreate.get(urn);
}

/**
 * The dynamic face's {@link awaitingCreate}: its host passes no URN, so a check without olds is kept by its
 * checked inputs, with the inputs the program gave, and a delete is matched by its recorded outputs (which
 * echo every input): a `--replace` changes none of them.
 */
const awaitingCreateByInputs = new Map<
  string,
  { given: Record<string, unknown>; inputs: Record<string, unknown> }
>();

/** {@link noteChecked} of the dynamic face. */
export function noteCheckedInputs(
  olds: Record<string, unknown>,
  given: Record<string, unknown>,
  inputs: Record<string, unknown>,
): void {
  if (Object.keys(olds).length === 0) awaitingCreateByInputs.set(sortedJson(inputs), { given, inputs });
}

/** {@link noteCreating} of the dynamic face. */
export function noteCreatingInputs(inputs: Record<string, unknown>): void {
  awaitingCreateByInputs.delete(sortedJson(inputs));
}

/**
 * {@link createAfterDelete} of the dynamic face: the checked inputs of a create not made yet whose given
 * inputs the deleted resource's outputs all hold as they are, else undefined.
 */
export function createAfterDeleteOf(outputs: Record<string, unknown>): Record<string, unknown> | undefined {
  for (const { given, inputs } of awaitingCreateByInputs.values()) {
    const same = Object.entries(given).every(
      ([k, v]) => k in outputs && sortedJson(outputs[k]) === sortedJson(v),
    );
    if (same && Object.keys(given).length > 0) return inputs;
  }
  return undefined;
}

/**
 * After a diff that replaces the resource: asks the kind about the replacement's create, then notes it
 * asked, so the replacement's own check does not ask again. Both faces' Diff, `urn` where the face knows it.
 */
export async function askAboutReplacement<I, O extends I>(
  kind: ResourceKind<I, O>,
  ctx: OperationContext,
  news: I,
  urn?: string,
): Promise<void> {
  if (!kind.checkReplacement) return;
  await kind.checkReplacement(ctx, news);
  noteAskedByDiff(news, urn);
}

/**
 * A delete, which may come before its replacement's create (`replacement`, the create's checked inputs:
 * `deleteBeforeReplace` and no diff that asked): the create is asked about first, and a refusal keeps the
 * resource; a replacement that takes the resource over as it is keeps it too. Both faces' Delete.
 */
export async function deleteBeforeReplacement<I, O extends I>(
  kind: ResourceKind<I, O>,
  ctx: OperationContext,
  id: string,
  outputs: O,
  replacement: I | undefined,
): Promise<void> {
  if (replacement !== undefined) {
    await kind.checkReplacement?.(ctx, replacement);
    if (kind.keptByReplacement?.(id, replacement)) return;
  }
  await kind.delete(ctx, id, outputs);
}
