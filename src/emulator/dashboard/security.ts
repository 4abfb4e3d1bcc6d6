import type { IncomingMessage } from "node:http";
import { isLoopbackHost } from "../adminAccess";

/**
 * The page may load only its own script, style and images and talk only to its own origin: no inline
 * script or style, no framing, no form posting elsewhere, no plug-ins.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** Headers of every dashboard answer (pages, assets, the event stream). */
export function securityHeaders(): Record<string, string> {
  return {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
  };
}

const LOOPBACK_ADDRESSES: ReadonlySet<string> = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/**
 * Why a dashboard page is refused, or `undefined`: it is served only to this machine (the emulator binds
 * 127.0.0.1, and a peer elsewhere is refused all the same) and only under a loopback name, so a page of a
 * domain re-resolved to 127.0.0.1 (DNS rebinding) gets nothing, and only by a top-level navigation or
 * the page's own requests (`Sec-Fetch-Site`): a link from elsewhere opens the login page, but no other
 * site can embed or fetch its files.
 */
export function pageRefusal(req: IncomingMessage): string | undefined {
  if (!LOOPBACK_ADDRESSES.has(req.socket.remoteAddress ?? "")) return "served only to this machine";
  if (!isLoopbackHost(req.headers.host))
    return "served only at 127.0.0.1 or localhost: use the URL the emulator printed";
  const site = req.headers["sec-fetch-site"];
  const navigation = req.headers["sec-fetch-mode"] === "navigate";
  if (site !== undefined && site !== "same-origin" && site !== "none" && !navigation)
    return "not served to other sites' pages";
  return undefined;
}
