/**
 * The Server kind as the dynamic provider host calls it. Loaded at call time by the serialized shim
 * through the package subpath `pulumi-gamehost/provider/server`, so nothing here is ever serialized
 * into state; the function names and shapes are what shims already stored in stacks call.
 */
import type { CheckFailure } from "../checks";
import { dynamicContext } from "../settings";
import { serverKind } from "./kind";
import type { ServerInputs, ServerOutputs } from "./spec";

export { configure } from "../settings";

export async function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  // The dynamic provider host passes no random seed: a new key comes from the OS.
  const { inputs, failures } = serverKind.check(olds, news, {});
  return { inputs: inputs as unknown as Record<string, unknown>, failures };
}

export async function diff(
  id: string,
  olds: ServerOutputs,
  news: ServerInputs,
): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }> {
  const { changes, replaces, deleteBeforeReplace } = serverKind.diff(id, olds, news);
  return { changes, replaces, deleteBeforeReplace };
}

export async function create(inputs: ServerInputs): Promise<{ id: string; outs: ServerOutputs }> {
  const { id, outputs } = await serverKind.create(dynamicContext(), inputs);
  return { id, outs: outputs };
}

export async function read(id: string, props: ServerOutputs): Promise<{ id: string; props?: ServerOutputs }> {
  const found = await serverKind.read(dynamicContext(), id, { inputs: props, outputs: props });
  return found ? { id: found.id, props: found.outputs } : { id: "" };
}

export async function update(
  id: string,
  olds: ServerOutputs,
  news: ServerInputs,
): Promise<{ outs: ServerOutputs }> {
  return { outs: await serverKind.update(dynamicContext(), id, olds, news) };
}

async function deleteServer(id: string, props: ServerOutputs): Promise<void> {
  await serverKind.delete(dynamicContext(), id, props);
}

export { deleteServer as delete };
