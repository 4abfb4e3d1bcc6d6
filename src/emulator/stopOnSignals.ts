/**
 * How the emulator's process ends on a signal. The first stops it in order: answers waiting for their state
 * write go out, then the connections close. That can be held up (a slow or full disk), and a second Ctrl-C
 * then exits at once, as it does in the `pulumi` CLI: what the emulator answered is on disk already (a change
 * is answered only once written), and a new emulator takes over the lock of one that is gone.
 */
export interface StopIo {
  write(text: string): void;
  exit(code: number): void;
}

/** A handler for each stop request (a signal, the launcher ending), given why it came. */
export function stopOnSignals(stop: () => Promise<void>, io: StopIo): (why: string) => void {
  let stopping = false;
  return (why) => {
    if (stopping) {
      io.write(`\n${why} again, exiting now\n`);
      io.exit(130);
      return;
    }
    stopping = true;
    io.write(`\n${why}, stopping… (Ctrl-C again exits at once)\n`);
    stop().then(
      () => io.exit(0),
      () => io.exit(1),
    );
  };
}
