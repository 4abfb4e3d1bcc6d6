/** Raw HTTP calls to an emulator, and the checks every error answer must pass. */
import { expect } from "vitest";
import type { RunningEmulator } from "../../src/emulator";

/** An answer with its body as text and, when it is JSON, parsed. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

export interface SendOptions {
  /** Serialized with `JSON.stringify` and sent as `application/json`. */
  json?: unknown;
  /** Sent as is, labelled `application/json` unless `headers` says otherwise. */
  raw?: string;
  /** Bearer token; default the main user's, `null` for none. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** One request with plain fetch: nothing validates or reshapes what is sent. */
export async function send(
  emu: RunningEmulator,
  method: string,
  path: string,
  options: SendOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? emu.tokens.user : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.raw;
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${emu.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

interface ErrorBody {
  code: string;
  message: string;
  ray_id: string;
  metadata?: { issues?: { path: string; message: string }[] };
}

/** Lines a stack trace would leave in a body. */
const STACK_TRACE = /\n\s+at |node:internal|\.[cm]?[jt]s:\d+:\d+/;

/**
 * A 400 with the service's error body: one of `codes`, the ray id repeated from the header, no
 * stack trace, and — when `field` is given — a message and issue list naming that field (or, with
 * `within`, a field inside it, such as one key of `tags_json`).
 */
export function expectServiceError(
  res: Reply,
  codes: readonly string[],
  field?: string,
  within = false,
): ErrorBody {
  expect(res.status, res.text).toBe(400);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.text).not.toMatch(STACK_TRACE);
  const body = res.body as ErrorBody;
  expect(codes, res.text).toContain(body.code);
  expect(typeof body.message).toBe("string");
  expect(body.ray_id).toBe(res.headers.get("rvt-ray-id"));
  if (field !== undefined) {
    expect(body.message, res.text).toContain(field);
    const issues = body.metadata?.issues;
    const named = (path: string) => path === field || (within && path.startsWith(`${field}.`));
    if (issues)
      expect(
        issues.some((i) => named(i.path)),
        res.text,
      ).toBe(true);
  }
  return body;
}
