/** Why a probed command could not run, in one line (the spawn error, stderr's last telling line, or the exit status). */
export function cannotRunReason(probe: {
  error?: Error;
  stderr?: string | null;
  status: number | null;
}): string;
