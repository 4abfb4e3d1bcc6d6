/** Lowercase hyphenated UUID: any other id segment makes a route not match (404). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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
  params: Record<string, string>;
}

interface Compiled<H> {
  route: Route<H>;
  name: string;
  segments: string[];
}

/** Routes matched segment by segment; param segments accept only lowercase UUIDs. */
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

  match(method: string, pathname: string): RouteMatch<H> | undefined {
    const parts = pathname.split("/").slice(1);
    for (const { route, name, segments } of this.compiled) {
      if (route.method !== method || segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < segments.length && matched; i++) {
        const seg = segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(":")) {
          if (UUID_PATTERN.test(part)) params[seg.slice(1)] = part;
          else matched = false;
        } else if (seg !== part) {
          matched = false;
        }
      }
      if (matched) return { route, name, params };
    }
    return undefined;
  }
}
