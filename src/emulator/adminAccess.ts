import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ERROR_CODES } from "../api/errors";
import { ServiceError } from "./http";

/**
 * Who may use the `/__admin` routes. Listening on 127.0.0.1 is not enough: any web page the user opens
 * can send a "simple" cross-site request there (a `text/plain` POST needs no CORS preflight), and a
 * page on a domain that re-resolves to 127.0.0.1 (DNS rebinding) can even read the answers. So each
 * admin request must be addressed to a loopback name (Host, and Origin when a browser sends one), carry
 * the admin token printed at start, and send its body as JSON (which a cross-site page cannot without
 * a preflight the emulator never grants).
 */

/** Host names that address this machine's loopback interface: the only ones the emulator answers as. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** A fresh admin token: 192 random bits, never derived from anything else. */
export function newAdminToken(): string {
  return `emu_admin_${randomBytes(24).toString("base64url")}`;
}

/** Whether a Host header names this machine's loopback interface (not a name that merely resolves there). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  try {
    return LOOPBACK_NAMES.has(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_NAMES.has(url.hostname);
  } catch {
    return false;
  }
}

/** Compares in constant time (of the digests): a wrong guess tells nothing about the token. */
function sameToken(sent: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

/**
 * Why an admin request is refused, or `undefined` when it may go on: 403 `API_FORBIDDEN` for a Host
 * or Origin that is not a loopback name, 401 `API_UNAUTHORIZED` without the admin token, 415
 * `API_BAD_BODY` for a POST whose body is not declared JSON.
 */
export function adminRefusal(req: IncomingMessage, token: string): ServiceError | undefined {
  if (!isLoopbackHost(req.headers.host))
    return new ServiceError(
      403,
      ERROR_CODES.forbidden,
      "Admin routes answer only requests addressed to 127.0.0.1 or localhost: use the URL the emulator printed.",
    );
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin))
    return new ServiceError(
      403,
      ERROR_CODES.forbidden,
      "Admin routes refuse requests from web pages of other origins.",
    );
  // Browsers say where a request comes from: only the dashboard's own pages (or no page at all) may act.
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return new ServiceError(
      403,
      ERROR_CODES.forbidden,
      "Admin routes refuse requests sent by other sites' pages (Sec-Fetch-Site).",
    );
  const auth = req.headers.authorization;
  const sent = auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length).trim() : undefined;
  if (sent === undefined)
    return new ServiceError(
      401,
      ERROR_CODES.unauthorized,
      "Admin routes need the admin token the emulator printed at start: send Authorization: Bearer <admin token>.",
    );
  // The commonest wrong token is a right one of an earlier start: a script or tab kept it across a restart.
  if (!sameToken(sent, token))
    return new ServiceError(
      401,
      ERROR_CODES.unauthorized,
      "That is not this emulator's admin token: each start makes a new one (was the emulator restarted?). Send the one it printed at its last start (admin token emu_admin_…) as Authorization: Bearer <admin token>.",
    );
  if (req.method === "POST" && !isJson(req.headers["content-type"]))
    return new ServiceError(
      415,
      ERROR_CODES.badBody,
      "Admin POST requests must declare a JSON body, also a route that takes none (a kill): set Content-Type: application/json.",
    );
  return undefined;
}
