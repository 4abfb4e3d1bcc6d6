/**
 * Secrets out of errors. A service or proxy that echoes the request can put the token anywhere in an
 * answer (the error's code, message, ray id, documentation URL, metadata, a header, the raw bytes of a
 * malformed answer), and a download host echoes the presigned URL it was sent (its query is the
 * signature), so the client passes every error it raises through {@link redactError} once, rather than
 * cleaning fields one by one where they are read.
 *
 * The one rule: every secret the client holds (the token, each part of a presigned URL's query) is
 * replaced wherever it occurs, in any form it may be echoed in; and whatever the client holds, the query
 * of any URL, its user info (`user:password@`), an echoed `Basic …` or `Bearer …` credential, and the value of
 * any signature-, credential- or token-like query parameter are replaced.
 */

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Deeper than this, a value is replaced whole: a hostile answer must not overflow the stack. */
const MAX_DEPTH = 32;

/**
 * A secret this long is replaced wherever it occurs. A shorter one (no token the service issues, but
 * a test's `t`) only where it stands as a word of its own, as in `Bearer t`: replaced inside words,
 * it would garble the error's own text ("Nothing" → "No[redacted]hing").
 */
const MIN_LENGTH_ANYWHERE = 8;

/** The forms an echo may carry a secret in: as sent, percent-encoded, JSON-escaped; longest first. */
function formsOf(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The query of a URL (`?` up to a fragment, space or quote): a presigned URL's signature lives there. */
const URL_QUERY = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]+/gi;

/** `X-Amz-Signature=…`, `sig=…`, `token=…` outside a URL (an echoed query string, a canonical request). */
const SECRET_PARAMETER =
  /(^|[?&;,\s"'(])([\w.-]*(?:signature|credential|token|sig|secret)[\w.-]*=)(?!\[redacted\])[^&\s"'<>;,)]+/gi;

function redactText(text: string, forms: readonly string[]): string {
  let out = redactPatterns(text);
  for (const form of forms) {
    if (!out.includes(form)) continue;
    out =
      form.length >= MIN_LENGTH_ANYWHERE
        ? out.split(form).join(REDACTED)
        : out.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(form)}(?![A-Za-z0-9])`, "g"), REDACTED);
  }
  return out;
}

/** The user info of a URL (`http://user:password@proxy`): a proxy's credentials, echoed by its page. */
const URL_USER_INFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/**
 * An echoed `Authorization` or `Proxy-Authorization` header's credential (`Basic <base64>`, `Bearer <token>`),
 * found by the header's name, so that a message's own words ("Basic authentication") stay as they are.
 */
const AUTHORIZATION_VALUE =
  /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:basic|bearer)\s+)(?!\[redacted\])[A-Za-z0-9+/._~-]+=*/gi;

function redactPatterns(text: string): string {
  let out = text;
  if (out.includes("@")) out = out.replace(URL_USER_INFO, `$1${REDACTED}@`);
  if (/authorization/i.test(out)) out = out.replace(AUTHORIZATION_VALUE, `$1${REDACTED}`);
  if (!out.includes("=") && !out.includes("?")) return out;
  return out
    .replace(URL_QUERY, `$1?${REDACTED}`)
    .replace(SECRET_PARAMETER, (_all, before: string, name: string) => `${before}${name}${REDACTED}`);
}

/**
 * The secrets of a presigned URL, for {@link redactError}: its whole query and each parameter's value,
 * as sent (percent-encoded) and decoded. Values shorter than 8 characters (`X-Amz-Expires=3600`) are
 * left to the query rule: replaced as words, they would garble unrelated numbers in the message.
 */
export function secretsOfUrl(url: string): string[] {
  const at = url.indexOf("?");
  if (at === -1) return [];
  const query = url.slice(at + 1).split("#")[0] ?? "";
  const secrets = new Set<string>([url, query]);
  for (const pair of query.split("&")) {
    const raw = pair.slice(pair.indexOf("=") + 1);
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw.replace(/\+/g, " "));
    } catch {
      // Not valid percent-encoding: the raw value is the secret as it may be echoed.
    }
    for (const value of [raw, decoded]) if (value.length >= MIN_LENGTH_ANYWHERE) secrets.add(value);
  }
  return [...secrets].filter((secret) => secret.length > 0);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function redactValue(value: unknown, forms: readonly string[], depth: number): unknown {
  if (typeof value === "string") return redactText(value, forms);
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    const items = value.map((item) => redactValue(item, forms, depth + 1));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (!isPlainObject(value)) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const cleanKey = redactText(key, forms);
    const cleanItem = redactValue(item, forms, depth + 1);
    if (cleanKey !== key || cleanItem !== item) changed = true;
    out[cleanKey] = cleanItem;
  }
  return changed ? out : value;
}

/**
 * `value` with every occurrence of each secret (as sent, percent-encoded or JSON-escaped) replaced by
 * {@link REDACTED}: in strings, and in the keys and values of arrays and plain objects at any depth
 * (past 32 levels a value is replaced whole). A secret shorter than 8 characters is replaced only
 * where it stands as a word. Returns `value` itself when nothing changes.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  return redactValue(value, formsOf(secrets), 0) as T;
}

/**
 * `error` with every one of `secrets` replaced ({@link redactError}); without any, the error as it is (the
 * patterns alone would still rewrite a URL's query the message names on purpose).
 */
export function withoutSecrets<E>(error: E, secrets: readonly string[]): E {
  return secrets.length > 0 ? redactError(error, secrets) : error;
}

/**
 * Every text inside `value` that would name it in a message: a string itself, an array's items, an object's
 * keys and values, recursively. What a secret argument (a name, a map of tags) can be echoed as.
 */
export function textsOf(value: unknown): string[] {
  const out: string[] = [];
  const collect = (inner: unknown): void => {
    if (typeof inner === "string") out.push(inner);
    else if (Array.isArray(inner)) for (const item of inner) collect(item);
    else if (inner !== null && typeof inner === "object")
      for (const [key, item] of Object.entries(inner)) {
        out.push(key);
        collect(item);
      }
  };
  collect(value);
  return out;
}

/**
 * Redacts an error in place and returns it: its message, its stack (which repeats the message) and
 * every other own field, then its cause and theirs (undici keeps the raw bytes of a malformed answer
 * in its error's `data`). A field that is neither writable nor configurable is left as it is: no
 * error of this package has one.
 */
export function redactError<E>(error: E, secrets: readonly string[]): E {
  redactObject(error, formsOf(secrets), new Set());
  return error;
}

function redactObject(target: unknown, forms: readonly string[], seen: Set<object>): void {
  if (typeof target !== "object" || target === null || seen.has(target)) return;
  seen.add(target);
  for (const key of Reflect.ownKeys(target)) {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (!descriptor) continue;
    const value = "value" in descriptor ? descriptor.value : Reflect.get(target, key);
    if (value instanceof Error) {
      redactObject(value, forms, seen);
      continue;
    }
    const clean = redactValue(value, forms, 0);
    if (clean === value) continue;
    if (descriptor.set || descriptor.writable) Reflect.set(target, key, clean);
    else if (descriptor.configurable) {
      const { enumerable, configurable } = descriptor;
      Object.defineProperty(target, key, { value: clean, enumerable, configurable, writable: false });
    }
  }
}
