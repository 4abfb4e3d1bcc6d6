/**
 * Path globs for fault injection over HTTP. A regular expression from a request would run on every
 * later request path with JavaScript's backtracking engine, where `^([\/a-z0-9-]+)+!$` takes
 * exponential time and freezes the emulator; a glob is matched by simulating all its positions at
 * once, so matching is linear in the path's length whatever the glob.
 */

/** Longest glob accepted: bounds the work per path character. */
export const MAX_GLOB_LENGTH = 256;

type Token = { kind: "char"; char: string } | { kind: "star" } | { kind: "globstar" };

function tokensOf(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char !== "*") tokens.push({ kind: "char", char });
    else if (glob[i + 1] === "*") {
      // `***…` is one `**`.
      while (glob[i + 1] === "*") i++;
      tokens.push({ kind: "globstar" });
    } else tokens.push({ kind: "star" });
  }
  return tokens;
}

/**
 * A glob over request paths: `*` matches any run of characters within one segment (not `/`), `**`
 * any run at all (across segments); every other character matches itself. The whole path must match:
 * `/cloud/games/*` matches `/cloud/games/<id>`, `/games/**` every route under `/games`, `/cloud/boot*`
 * the bootstrap.
 */
export class PathGlob {
  readonly #tokens: Token[];

  constructor(readonly source: string) {
    if (source.length === 0 || source.length > MAX_GLOB_LENGTH)
      throw new RangeError(`must have 1 to ${MAX_GLOB_LENGTH} characters`);
    this.#tokens = tokensOf(source);
  }

  /** Whether the whole path matches: O(path length × glob length), never backtracking. */
  test(path: string): boolean {
    const tokens = this.#tokens;
    const size = tokens.length + 1;
    let states = new Uint8Array(size);
    let next = new Uint8Array(size);
    states[0] = 1;
    closeOver(tokens, states);
    for (let p = 0; p < path.length; p++) {
      const char = path[p];
      next.fill(0);
      let any = false;
      for (let i = 0; i < tokens.length; i++) {
        if (!states[i]) continue;
        const token = tokens[i] as Token;
        if (token.kind === "char") {
          if (token.char === char) next[i + 1] = 1;
        } else if (token.kind === "globstar" || char !== "/") next[i] = 1;
        any ||= next[i] === 1 || next[i + 1] === 1;
      }
      if (!any) return false;
      closeOver(tokens, next);
      [states, next] = [next, states];
    }
    return states[tokens.length] === 1;
  }
}

/** Adds the positions reachable by letting each `*` or `**` match nothing. */
function closeOver(tokens: readonly Token[], states: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) {
    if (states[i] && (tokens[i] as Token).kind !== "char") states[i + 1] = 1;
  }
}
