/** The Node and undici codes of a request that got no HTTP answer, grouped by what the reader can do about them. */

/** Failures that show nothing answers at the base URL (as opposed to a slow or broken answer). */
export const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/**
 * An https:// request answered in plain HTTP (the emulator, a local server): no retry can change it, so it is
 * named as the base URL's scheme, not as a failed connection to retry.
 */
export const PLAIN_HTTP_ANSWER = "ERR_SSL_WRONG_VERSION_NUMBER";
/**
 * A certificate the TLS handshake refused (Node's X.509 verification codes, and the host name check): the
 * handshake ends before any byte of the request is written, and no retry changes the certificate.
 */
export const CERTIFICATE_ERROR_CODES: ReadonlySet<string> = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "ERROR_IN_CERT_NOT_BEFORE_FIELD",
  "ERROR_IN_CERT_NOT_AFTER_FIELD",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_CHAIN_TOO_LONG",
  "CERT_REVOKED",
  "INVALID_CA",
  "PATH_LENGTH_EXCEEDED",
  "INVALID_PURPOSE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * TLS handshakes that failed before any byte of the request was written, and fail again on every attempt
 * until a setting or the service's certificate changes.
 */
export const HANDSHAKE_FAILURE_CODES: ReadonlySet<string> = new Set([
  ...CERTIFICATE_ERROR_CODES,
  PLAIN_HTTP_ANSWER,
]);
/** A certificate that is out of date: this machine's clock, or a certificate the service let lapse. */
export const OUT_OF_DATE_CERTIFICATE = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);
/** A certificate for another host name than the base URL's. */
export const OTHER_HOST_CERTIFICATE = new Set(["ERR_TLS_CERT_ALTNAME_INVALID", "HOSTNAME_MISMATCH"]);
export const TIMED_OUT = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
]);

/** The codes of a connection that never opened: with a proxy set, the only connection the client opens is the proxy's. */
export const PROXY_UNREACHABLE = new Set([...UNREACHABLE, "UND_ERR_CONNECT_TIMEOUT"]);

/** Set on an error of the CONNECT exchange with a proxy (see proxy.ts): the tunnel never opened. */
export const PROXY_TUNNEL_FAILURE = Symbol.for("pulumi-gamehost.proxyTunnelFailure");

/** The `code` of a Node or undici error, if it has one. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
