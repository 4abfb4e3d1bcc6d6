/**
 * Calls `onGone` once the process that started this one has ended: a parent that ends turns this process's
 * parent id into another one's (the subreaper's or init's). For processes whose starter can end without
 * stopping them (a SIGKILLed `pulumi up` and its plugin, an npx that a SIGTERM ends alone and its emulator).
 */
export function whenParentEnds(
  onGone: () => void,
  parentId: () => number = () => process.ppid,
  everyMs = 250,
): void {
  const parent = parentId();
  const timer = setInterval(() => {
    if (parentId() === parent) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
}
