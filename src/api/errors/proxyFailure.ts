import type { ProxyChoice } from "../proxyChoice";
import {
  CERTIFICATE_ERROR_CODES,
  errorCode,
  OTHER_HOST_CERTIFICATE,
  OUT_OF_DATE_CERTIFICATE,
  PROXY_TUNNEL_FAILURE,
  PROXY_UNREACHABLE,
  TIMED_OUT,
} from "./connectionCodes";
import { checkBaseUrl, type SettingOrigins } from "./settingAdvice";

/** Whether `cause` is a failure of the proxy itself (refused, unreachable, no tunnel): the request was not passed on. */
export function failedAtProxy(cause: unknown, proxy: ProxyChoice | undefined): boolean {
  return proxy !== undefined && proxyFailure(cause, proxy, "", undefined) !== undefined;
}

/**
 * What to do about a request the proxy failed, or `undefined` when the failure is past the proxy (the
 * service's). Never quotes the proxy's URL as given: it may carry a password.
 */
export function proxyFailure(
  cause: unknown,
  proxy: ProxyChoice,
  at: string,
  origins: SettingOrigins | undefined,
): string | undefined {
  const code = errorCode(cause);
  const message = cause instanceof Error ? cause.message : "";
  const named = `The proxy ${proxy.shown} (from ${proxy.envVar})`;
  const bypass = `add the service's host to NO_PROXY if it is reachable without the proxy`;
  if (typeof code === "string" && PROXY_UNREACHABLE.has(code)) {
    const what =
      code === "ECONNREFUSED"
        ? "refused the connection"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? "has a host name that does not resolve"
          : "cannot be reached";
    return `${named} ${what}, so nothing was sent to ${at}: check ${proxy.envVar} and that the proxy is running, or ${bypass}.`;
  }
  // undici: `Proxy response (407) !== 200 when HTTP Tunneling` (CONNECT), `Proxy Authentication Required (407)`.
  const status = Number(message.match(/^Proxy (?:response|Authentication Required) \((\d{3})\)/)?.[1]);
  if (status === 407) {
    return proxy.hasCredentials
      ? `${named} refused its user name and password (407 Proxy Authentication Required), so nothing was sent to ${at}: correct them in ${proxy.envVar} (http://<user>:<password>@<host>:<port>, special characters percent-encoded).`
      : `${named} requires a user name and password (407 Proxy Authentication Required), so nothing was sent to ${at}: give them in ${proxy.envVar} as http://<user>:<password>@<host>:<port> (special characters percent-encoded).`;
  }
  if (status === 403) {
    return `${named} refused to connect to ${at} (403), so nothing was sent: ask its administrators to allow that host and port, or ${bypass}.`;
  }
  if (status >= 500) {
    return `${named} could not reach ${at} (${status}), so nothing was sent to it: ${checkBaseUrl(origins)} and that the service is running (the proxy's own logs say why it failed).`;
  }
  if (Number.isInteger(status)) {
    return `${named} refused the connection to ${at} (${status}), so nothing was sent: check ${proxy.envVar}.`;
  }
  if ((cause as Record<symbol, unknown> | undefined)?.[PROXY_TUNNEL_FAILURE] === true) {
    // The TLS handshake with an https:// proxy (undici wraps a host name mismatch in an error of its own).
    const tlsCode =
      code !== undefined && CERTIFICATE_ERROR_CODES.has(code)
        ? code
        : errorCode((cause as { cause?: unknown }).cause);
    if (tlsCode !== undefined && CERTIFICATE_ERROR_CODES.has(tlsCode)) {
      const problem = OUT_OF_DATE_CERTIFICATE.has(tlsCode)
        ? "is out of date"
        : OTHER_HOST_CERTIFICATE.has(tlsCode)
          ? "is for another host"
          : "is not trusted";
      return `The certificate of the proxy ${proxy.shown} (from ${proxy.envVar}) ${problem}, so nothing was sent to ${at}: check the proxy's host name in ${proxy.envVar}; for a proxy whose certificate comes from a private authority, give Node that authority's certificate (NODE_EXTRA_CA_CERTS=<file.pem> in the environment that runs pulumi).`;
    }
    return typeof code === "string" && TIMED_OUT.has(code)
      ? `${named} accepted the connection but did not answer its CONNECT request in time, so nothing was sent to ${at}: check that the proxy is working, or ${bypass}.`
      : `${named} closed the connection before opening a tunnel to ${at}, so nothing was sent: check that the proxy is working, or ${bypass}.`;
  }
  return undefined;
}
