import { isDeepStrictEqual } from "node:util";
import type { Watch } from "./generated/wire";

/** A watchable answer: any data plus its version marker. */
export interface Watched {
  watch: Watch;
}

/** Fetches one version: without an index at once, with one after the service's hold. */
export type WatchFetch<T extends Watched> = (
  watchIndex: string | undefined,
  signal?: AbortSignal,
) => Promise<T>;

function withoutWatch<T extends Watched>(value: T): Omit<T, "watch"> {
  const { watch: _ignored, ...data } = value;
  return data;
}

/**
 * Long-poll loop of a watchable endpoint (docs/service-contract.md §5): the first call carries no index and
 * is yielded; each later call passes the last `watch.index` and is yielded only when it is a new
 * version. A hold that ends with the same index, or with a fresh index but equal data, is the
 * service's normal timeout and is not yielded. The loop ends without error when `signal` fires;
 * any other failure propagates.
 */
export async function* watchVersions<T extends Watched>(
  fetch: WatchFetch<T>,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  let index: string | undefined;
  let last: Omit<T, "watch"> | undefined;
  while (!signal?.aborted) {
    let answer: T;
    try {
      answer = await fetch(index, signal);
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    if (signal?.aborted) return;
    const data = withoutWatch(answer);
    const isNew = last === undefined || (answer.watch.index !== index && !isDeepStrictEqual(data, last));
    index = answer.watch.index;
    if (isNew) {
      last = data;
      yield answer;
    }
  }
}
