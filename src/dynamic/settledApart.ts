/**
 * Every Pulumi Node.js program runs with a debugger session enabled (the SDK's `cmd/run` connects one
 * for closure serialization), and with a debugger enabled, V8 before 12 (Node 20) answers each `throw`
 * in an async function by searching the promises that depend on it for a reject handler, down every
 * path of the graph, without remembering where it has been. The promises behind a few chained Outputs
 * (`env.gameId` in two `getXOutput` calls) make that millions of paths: the program grows to GBs and
 * dies unreported (docs/known-issues.md).
 *
 * The search stops at the first reject handler that is not a built-in forwarder. A data source's work
 * therefore runs apart from the promise handed to the SDK or the program, which settles through such a
 * handler: a failure inside it is found handled at once, and still reaches the caller as itself.
 */
export function settledApart<T>(work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    work().then(resolve, reject);
  });
}
