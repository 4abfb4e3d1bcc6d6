// Statistics and printing. Every figure is reported as the median over rounds with its spread
// (min–max), and every ratio is formed per round from a subject and a baseline measured back to back.

/** Value at quantile `q` (0..1) of `values`, by linear interpolation. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** `{median, min, max, p25, p75, n}` of `values`. */
export function summary(values) {
  return {
    median: quantile(values, 0.5),
    min: Math.min(...values),
    max: Math.max(...values),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
    n: values.length,
  };
}

/** Formats a number with `digits` significant decimals, without trailing noise. */
export function fmt(value, digits = 2) {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(Math.max(0, digits - 2));
  if (abs >= 10) return value.toFixed(Math.max(0, digits - 1));
  return value.toFixed(digits);
}

/** `median [min–max] (n=…)`. */
export function spread(values, digits = 2, unit = "") {
  const s = summary(values);
  return `${fmt(s.median, digits)}${unit} [${fmt(s.min, digits)}–${fmt(s.max, digits)}] (n=${s.n})`;
}

/**
 * Runs `rounds` rounds of `{subject, baseline}` measurements, alternating which goes first, and returns the
 * per-round values of both and their ratios (`subject / baseline`).
 */
export async function paired(rounds, measure) {
  const subject = [];
  const baseline = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      baseline.push(await measure.baseline(r));
      subject.push(await measure.subject(r));
    } else {
      subject.push(await measure.subject(r));
      baseline.push(await measure.baseline(r));
    }
  }
  return { subject, baseline, ratio: subject.map((s, i) => s / baseline[i]) };
}

/**
 * Runs `rounds` rounds of every measure of `measures` (name → `(round) => value`), back to back. The order
 * rotates from round to round and every other round runs reversed, so no measure is always first or last
 * (with three measures, six rounds run every order once). Returns the per-round values by name.
 */
export async function interleaved(rounds, measures) {
  const names = Object.keys(measures);
  const values = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    const shift = Math.floor(r / 2) % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    if (r % 2 === 1) order.reverse();
    for (const name of order) values[name].push(await measures[name](r));
  }
  return values;
}

/** One line of a bench's report. */
export function line(text = "") {
  process.stdout.write(`${text}\n`);
}

/**
 * A checked figure for the final table: `{id, name, value (median), spread, unit, target, met}`. The run
 * script collects these from the `BENCH_FIGURE` lines each bench prints.
 */
export function figure({ name, values, unit = "", digits = 2, target, met }) {
  const s = summary(values);
  const record = {
    name,
    median: s.median,
    min: s.min,
    max: s.max,
    n: s.n,
    unit,
    digits,
    target: target ?? null,
    met: met === undefined ? null : Boolean(met),
  };
  process.stdout.write(`BENCH_FIGURE ${JSON.stringify(record)}\n`);
  return record;
}
