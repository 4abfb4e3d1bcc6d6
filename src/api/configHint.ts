/**
 * The first config mistakes: a key in another case (`gamehost:baseURL`), misspelt (`gamehost:baseUri`), or
 * without the package's namespace (`pulumi config set baseUrl …` sets `<project>:baseUrl`). The package reads
 * only its own keys, so such a setting is silently ignored and the error says the key "is not set": it
 * names the key the stack does set, so the fix is one rename away. Only key names are read, never values.
 */
import type { GamehostConfigError } from "./errors";

const normalized = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Edit distance of two short strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * Whether a key's namespace may be a slip for `wanted`'s: the package's own in another case or misspelt, or
 * the project's (a key set without a namespace). Another provider's keys (`github:token`) are its own.
 */
function mayBeOurs(key: string, wanted: string, project: string | undefined): boolean {
  const namespace = normalized(key.slice(0, key.indexOf(":")));
  const ours = normalized(wanted.slice(0, wanted.indexOf(":")));
  return distance(namespace, ours) <= 2 || (project !== undefined && namespace === normalized(project));
}

/**
 * Keys of `present` that look like `wanted` (`gamehost:baseUrl`) without being it, in the package's namespace
 * (any case, misspelt) or the `project`'s.
 */
export function lookalikeKeys(wanted: string, present: readonly string[], project?: string): string[] {
  const name = normalized(wanted.slice(wanted.indexOf(":") + 1));
  return present.filter((key) => {
    if (key === wanted || !mayBeOurs(key, wanted, project)) return false;
    // `<project>:config:baseUrl`, as some engines spell a project key, reads as `<project>:baseUrl`.
    const own = normalized(key.slice(key.lastIndexOf(":") + 1));
    return own === name || distance(own, name) <= (name.length > 5 ? 2 : 1);
  });
}

/** `error` with the look-alike keys the stack sets named after its message (the same error, for `instanceof`). */
export function withLookalikeHint(
  error: GamehostConfigError,
  present: readonly string[],
  project?: string,
): GamehostConfigError {
  const keys = lookalikeKeys(error.key, present, project);
  if (keys.length === 0) return error;
  const named = keys.slice(0, 3).join(" and ");
  error.message = `${error.message} The stack sets ${named}, which the package does not read: config keys are namespaced and case-sensitive (rename ${keys.length > 1 ? "one of them" : "it"} to ${error.key}).`;
  return error;
}

/**
 * The warning for keys of the package's namespace that it does not read (`gamehost:environment`, or
 * `gamehost:requestTimeoutMS` for `gamehost:requestTimeoutMs`), or undefined when there are none. Such a key
 * changes nothing, silently: a person who runs one game in several stacks may take `gamehost:environment`
 * for a setting of the package, as `aws:region` is of its provider, or mistype a key on one stack only.
 * `known`: the package's keys (`gamehost:baseUrl` …); `present`: the keys the stack sets in that namespace.
 */
export function unreadKeysWarning(known: readonly string[], present: readonly string[]): string | undefined {
  const unread = present.filter((key) => !known.includes(key)).sort();
  if (unread.length === 0) return undefined;
  const each = unread.map((key) => {
    const meant = known.find((wanted) => lookalikeKeys(wanted, [key]).length > 0);
    return meant ? `${key} (rename it to ${meant}: keys are case-sensitive)` : key;
  });
  const namespace = known[0]?.split(":")[0] ?? "gamehost";
  return (
    `${each.join(", ")} ${unread.length > 1 ? "are" : "is"} set in the stack's config, but pulumi-gamehost reads no such setting, so ${unread.length > 1 ? "they change" : "it changes"} nothing ` +
    `(its settings: ${known.join(", ")}). A setting of your program's own goes in the project's namespace: ` +
    `\`pulumi config set ${unread[0]?.slice(namespace.length + 1)} <value>\`, read with \`new pulumi.Config().get(…)\`.`
  );
}
