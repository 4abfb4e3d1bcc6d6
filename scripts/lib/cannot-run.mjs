// Why a probed command could not run, in one line for the demo's "engine: `…` cannot run (…)": the spawn error,
// else stderr's line saying what failed, else its last line that says something (npm ends every failure with where
// its debug log is, which hid the reason, e.g. that the registry is out of reach), else the exit status.

const NPM_LOG_LINE = /A complete log of this run can be found in/;

/** @param {{ error?: Error, stderr?: string | null, status: number | null }} probe what `spawnSync` returned */
export function cannotRunReason(probe) {
  if (probe.error) return probe.error.message;
  const lines = `${probe.stderr ?? ""}`
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !NPM_LOG_LINE.test(line));
  // npm says what failed ("request to … failed") and then advises; the advice says nothing of this machine.
  return lines.find((line) => /\bfailed\b/i.test(line)) ?? lines.pop() ?? `exit ${probe.status}`;
}
