/**
 * Text from a user's fixture or state file made safe to print to a terminal. A game's display name is any
 * string the service accepts, and one holding `ESC [2J`, an OSC title or hyperlink sequence, a carriage
 * return or a right-to-left override would clear, retitle or rewrite what the emulator prints (a token
 * drawn after it reversed), so each such character is written as its `\u` escape, visible and inert.
 * Newline and tab are kept: the emulator's own layout uses them.
 */
export function printable(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// C0 and C1 controls but tab and newline, DEL, and the bidirectional formatting characters (the marks, the
// embeddings and overrides, the isolates).
const TERMINAL_CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
