/**
 * Test setup: the emulator's own warnings (an internal error provoked on purpose, a server that cannot
 * start) are expected by the tests that cause them, which listen for them; they are not printed to
 * the run's output. Every other warning, deprecations included, is printed as Node would.
 */
const printers = process.listeners("warning");
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name === "GamehostEmulatorWarning" || warning.message.startsWith("gamehost emulator:")) return;
  for (const print of printers) print(warning);
});
