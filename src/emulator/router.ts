import { canonicalUuid } from "../api/schemas/common";

/** A route: method plus a path pattern whose `:name` segments must be UUIDs. */
export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
}

/** A matched route: the route, its `"METHOD /pattern"` name for logs, and its id parameters. */
export interface RouteMatch<H> {
  route: Route<H>;
  name: string;
  /** Id parameters in canonical form (lowercase, hyphenated), whatever form the path used. */
  params: Record<string, string>;
}

interface Compiled<H> {
  route: Route<H>;
  name: string;
  segments: string[];
}

/**
 * An id segment as the service reads it: percent-escapes decoded (a client sends `{…}` as
 * `%7B…%7D`), then any UUID form the service parses; `undefined` when it is no UUID.
 */
function idParam(segment: string): string | undefined {
  if (!segment.includes("%")) return canonicalUuid(segment);
  try {
    return canonicalUuid(decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/**
 * Routes matched segment by segment. A param segment accepts any UUID form the service parses
 * (docs/service-contract.md §1) and hands it on canonical; any other segment makes the route not match.
 */
export class Router<H> {
  private readonly compiled: Compiled<H>[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.compiled.push({
      route: { method, pattern, handler },
      name: `${method} ${pattern}`,
      segments: pattern.split("/").slice(1),
    });
    return this;
  }

  /** The route serving this method and path, if any. */
  match(method: string, pathname: string): RouteMatch<H> | undefined {
    const parts = pathname.split("/").slice(1);
    for (const compiled of this.compiled) {
      if (compiled.route.method !== method) continue;
      const params = paramsOf(compiled.segments, parts);
      if (params) return { route: compiled.route, name: compiled.name, params };
    }
    return undefined;
  }

  /**
   * Whether some route serves this path with another method: the service answers such a request
   * 400 `API_METHOD_NOT_ALLOWED` rather than 404. Only asked once {@link match} has failed.
   */
  servesPath(pathname: string): boolean {
    const parts = pathname.split("/").slice(1);
    return this.compiled.some((c) => paramsOf(c.segments, parts) !== undefined);
  }
}

/** The id parameters when `parts` fit the pattern's `segments`, else `undefined`. */
function paramsOf(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    const part = parts[i] as string;
    if (seg.startsWith(":")) {
      const id = idParam(part);
      if (id === undefined) return undefined;
      params[seg.slice(1)] = id;
    } else if (seg !== part) {
      return undefined;
    }
  }
  return params;
}
