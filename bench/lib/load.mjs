// Load generator: `connections` keep-alive connections (undici Pool, no pipelining), each sending the
// next request as soon as its answer is read, until `maxRequests` answers or `maxMs` have passed.
import { Pool } from "undici";
import { quantile } from "./stats.mjs";

/**
 * `{requests, seconds, rps, p50Ms, p99Ms, errors}` for one run. `request` is `{method, path, headers, body}`;
 * any status other than `expectStatus` counts as an error.
 */
export async function runLoad(
  origin,
  request,
  { connections = 16, maxRequests = 50_000, maxMs = 2_000, expectStatus = 200 } = {},
) {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies = new Float64Array(maxRequests);
  let sent = 0;
  let done = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + maxMs;
  const worker = async () => {
    while (sent < maxRequests && performance.now() < deadline) {
      sent++;
      const t0 = performance.now();
      try {
        const res = await pool.request(request);
        await res.body.dump();
        if (res.statusCode !== expectStatus) errors++;
      } catch {
        errors++;
      }
      latencies[done++] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  const sample = Array.from(latencies.subarray(0, done));
  return {
    requests: done,
    seconds,
    rps: done / seconds,
    p50Ms: quantile(sample, 0.5),
    p99Ms: quantile(sample, 0.99),
    errors,
  };
}
