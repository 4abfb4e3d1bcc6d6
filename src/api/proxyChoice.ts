// The proxy a request went through, as errors and the transport share it: declarations only, apart from
// proxy.ts, whose undici types must not reach the declarations a program's type check reads (errors.d.ts is
// one of them; see test/packaging/publicTypes).

/** A proxy chosen for a request, as errors name it. */
export interface ProxyChoice {
  /** The proxy URL as given, credentials included: only ever handed to undici. */
  readonly uri: string;
  /** `scheme://host:port`, no credentials: what messages print. */
  readonly shown: string;
  /** The environment variable it came from (`HTTPS_PROXY`, `http_proxy`…). */
  readonly envVar: string;
  /** Whether the URL carries `user:password@`. */
  readonly hasCredentials: boolean;
  /** The credentials in every form an echo may carry them (for redaction). */
  readonly secrets: readonly string[];
}

/** The proxy settings of the environment. */
export interface ProxyEnvironment {
  readonly http?: ProxyChoice | undefined;
  readonly https?: ProxyChoice | undefined;
  /** `NO_PROXY` as given (part of the dispatcher's cache key). */
  readonly noProxy: string;
  /** Whether the request to `url` goes through a proxy, and which. */
  proxyFor(url: URL): ProxyChoice | undefined;
}
