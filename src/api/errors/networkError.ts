import type { ProxyChoice } from "../proxyChoice";
import { GamehostError } from "./base";
import {
  CERTIFICATE_ERROR_CODES,
  errorCode,
  HANDSHAKE_FAILURE_CODES,
  OTHER_HOST_CERTIFICATE,
  OUT_OF_DATE_CERTIFICATE,
  PLAIN_HTTP_ANSWER,
  TIMED_OUT,
  UNREACHABLE,
} from "./connectionCodes";
import { proxyFailure } from "./proxyFailure";
import { baseUrlSetting, checkBaseUrl, type SettingOrigins, timeoutSetting } from "./settingAdvice";

/**
 * What to do about a certificate the handshake refused. Retrying cannot help, and nothing was sent, so the
 * fix is never "retry" nor a lookup of what a POST may have made.
 */
function certificateFix(code: string, at: string, origins: SettingOrigins | undefined): string {
  if (OUT_OF_DATE_CERTIFICATE.has(code)) {
    return `The certificate of ${at} is out of date, so nothing was sent: check this machine's clock; if it is right, the service's certificate needs renewing.`;
  }
  if (OTHER_HOST_CERTIFICATE.has(code)) {
    return `The certificate of ${at} is for another host, so nothing was sent: ${checkBaseUrl(origins)}.`;
  }
  return `The certificate of ${at} is not trusted, so nothing was sent: ${checkBaseUrl(origins)}; for a service whose certificate comes from a private authority, give Node that authority's certificate (NODE_EXTRA_CA_CERTS=<file.pem> in the environment that runs pulumi).`;
}

/** The request never got an HTTP answer: connection refused or reset, or a timeout. */
export class GamehostNetworkError extends GamehostError {
  override name = "GamehostNetworkError";
  readonly method: string;
  readonly path: string;
  /** True when the request may have reached the service (sent, then no answer). */
  readonly mayHaveCommitted: boolean;
  /**
   * True when no attempt can succeed until a setting or the service's certificate changes: a certificate
   * the handshake refused, or an https:// base URL at a server without TLS.
   */
  readonly permanent: boolean;

  constructor(
    method: string,
    path: string,
    cause: unknown,
    mayHaveCommitted: boolean,
    baseUrl?: string,
    origins?: SettingOrigins,
    /** The client option that set the wait for headers, when not requestTimeoutMs (see TransportRequest). */
    headersTimeoutOption?: string,
    /** The proxy the request went through (from the proxy environment), if any. */
    proxy?: ProxyChoice,
  ) {
    const code = errorCode(cause);
    const atProxy = proxy ? proxyFailure(cause, proxy, baseUrl ?? "the base URL", origins) : undefined;
    const raise =
      // Only a client built in code has these options (gamehost's own commands build theirs from config).
      code === "UND_ERR_HEADERS_TIMEOUT" && headersTimeoutOption !== undefined && origins?.pulumi === false
        ? `the client option ${headersTimeoutOption}`
        : timeoutSetting(origins);
    // OpenSSL's reasons end with a newline: the message stays one line.
    const reason = (cause instanceof Error ? cause.message : String(cause)).trimEnd();
    const at = baseUrl ?? "the base URL";
    // A POST that may have run is never "just retry": sending a create again can make a second server.
    const lookUp = !(mayHaveCommitted && method === "POST")
      ? undefined
      : /\/servers$/.test(path)
        ? "find the server by its tags with listServers before creating another"
        : "look its result up before sending it again";
    const fix = atProxy
      ? atProxy
      : typeof code === "string" && UNREACHABLE.has(code)
        ? `Nothing answers at ${at}: ${checkBaseUrl(origins)}, and that the service is running.`
        : code === PLAIN_HTTP_ANSWER
          ? `${at} answers without TLS: ${checkBaseUrl(origins)}; a server without TLS, as the emulator, takes http://.`
          : typeof code === "string" && CERTIFICATE_ERROR_CODES.has(code)
            ? certificateFix(code, at, origins)
            : typeof code === "string" && TIMED_OUT.has(code)
              ? lookUp
                ? `The service did not answer in time, and the request may have taken effect: ${lookUp}. To wait longer, raise ${raise}.`
                : `The service did not answer in time: retry, or raise ${raise}.`
              : lookUp
                ? `The connection failed after the request was sent, and it may have taken effect: ${lookUp}. If it keeps failing, check the network and ${baseUrlSetting(origins)}.`
                : `The connection failed: retry; if it keeps failing, check the network and ${baseUrlSetting(origins)}.`;
    // Past the proxy, the failure is the service's (or the network's behind the proxy): still name the route.
    const route =
      proxy && !atProxy
        ? typeof code === "string" && CERTIFICATE_ERROR_CODES.has(code) && !OTHER_HOST_CERTIFICATE.has(code)
          ? ` The request went through the proxy ${proxy.shown} (from ${proxy.envVar}): a proxy that inspects TLS presents certificates of its own authority, and that authority's certificate is the one to give Node.`
          : ` The request went through the proxy ${proxy.shown} (from ${proxy.envVar}).`
        : "";
    super(`${fix}${route} [${method} ${path}: no answer, ${reason}]`, { cause });
    this.method = method;
    this.path = path;
    this.mayHaveCommitted = mayHaveCommitted;
    this.permanent = !atProxy && typeof code === "string" && HANDSHAKE_FAILURE_CODES.has(code);
  }
}

/**
 * A call did not finish, retries and the answer's body included, within its total deadline
 * (`gamehost:callTimeoutMs`). Like any lost answer, a POST may have done its work.
 */
export class GamehostDeadlineError extends GamehostNetworkError {
  override name = "GamehostDeadlineError";
  /** The deadline that passed, in ms. */
  readonly deadlineMs: number;

  constructor(method: string, path: string, deadlineMs: number) {
    super(method, path, new Error(`no complete answer within ${deadlineMs} ms`), true);
    this.message = `The call did not finish within its deadline of ${deadlineMs} ms, retries and the answer's body included: retry, or raise gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS). [${method} ${path}: no complete answer within ${deadlineMs} ms]`;
    this.deadlineMs = deadlineMs;
  }
}

/**
 * An answer larger than `gamehost:maxResponseBytes`, refused unread beyond the cap so a hostile or
 * broken service cannot exhaust memory. The call ran, so a POST may have done its work.
 */
export class GamehostResponseTooLargeError extends GamehostNetworkError {
  override name = "GamehostResponseTooLargeError";
  /** The cap that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(method: string, path: string, limitBytes: number) {
    super(method, path, new Error(`answer larger than ${limitBytes} bytes`), true);
    this.message = `The answer is larger than ${limitBytes} bytes, the cap on answers: raise gamehost:maxResponseBytes (GAMEHOST_MAX_RESPONSE_BYTES) if it is genuine. [${method} ${path}: answer over ${limitBytes} bytes]`;
    this.limitBytes = limitBytes;
  }
}
