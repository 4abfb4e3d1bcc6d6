import type { IncomingMessage, ServerResponse } from "node:http";
import type { Chaos } from "../chaos";
import type { EmulatorCore, Handler } from "../core";
import type { RequestLogEntry } from "../exchange";
import type { FaultQueue } from "../faults";
import type { Router } from "../router";
import { LiveStream, type LiveStreamOptions } from "./liveStream";
import { LiveView } from "./liveView";
import { RequestMonitor } from "./requestMonitor";
import { pageRefusal, securityHeaders } from "./security";
import { loadStaticFiles, type StaticFile } from "./staticFiles";

/** Where the dashboard is served. */
export const DASHBOARD_PATH = "/__dashboard/";

/** What the dashboard reads and acts on. */
export interface DashboardDeps {
  core: EmulatorCore;
  faults: FaultQueue;
  chaos: Chaos;
}

/** What the dashboard learns of an answered request: when it arrived (`performance.now()`) and who sent it. */
export interface AnsweredRequest {
  readonly startedAt: number;
  readonly authorization: string | undefined;
}

/**
 * The emulator's dashboard: static pages under {@link DASHBOARD_PATH} (no data in them), and an event
 * stream under `/__admin/events` behind the admin token, which the page reads with the token in an
 * `Authorization` header. Every action of the page is an admin API call a test could make.
 */
export class Dashboard {
  readonly monitor: RequestMonitor;
  readonly view: LiveView;
  readonly stream: LiveStream;
  private readonly files: Map<string, StaticFile>;

  constructor(deps: DashboardDeps, streamOptions: Partial<LiveStreamOptions> = {}) {
    this.files = loadStaticFiles();
    this.monitor = new RequestMonitor(deps.core.world, () => deps.core.now());
    this.view = new LiveView(deps.core, deps.faults, deps.chaos);
    this.stream = new LiveStream(deps.core, this.view, this.monitor, streamOptions);
  }

  /** Whether the request is for a dashboard page (`/` too, when a browser asks for HTML). */
  handles(method: string, pathname: string, accept: string | undefined): boolean {
    if (pathname === "/__dashboard" || pathname.startsWith(DASHBOARD_PATH)) return true;
    return pathname === "/" && method === "GET" && accept?.includes("text/html") === true;
  }

  /** Answers a request {@link handles} took. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    const refusal = pageRefusal(req);
    if (refusal) {
      plain(res, 403, `Forbidden: the gamehost emulator's dashboard is ${refusal}.`);
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      plain(res, 405, "Method not allowed: the dashboard's pages are read with GET.", { allow: "GET, HEAD" });
      return;
    }
    if (pathname === "/" || pathname === "/__dashboard") {
      res.writeHead(303, { ...securityHeaders(), location: DASHBOARD_PATH, "content-length": "0" });
      res.end();
      return;
    }
    const file = this.files.get(pathname);
    if (!file) {
      plain(res, 404, "Not found.");
      return;
    }
    res.writeHead(200, {
      ...securityHeaders(),
      "content-type": file.contentType,
      "content-length": String(file.body.length),
      "cache-control": "no-cache",
    });
    res.end(req.method === "HEAD" ? undefined : file.body);
  }

  /** Feeds the requests monitor: one call per answered API request. */
  record(entry: RequestLogEntry, request: AnsweredRequest | undefined): void {
    const ms = request ? performance.now() - request.startedAt : 0;
    this.monitor.record(entry, ms, request?.authorization);
    this.stream.requestRecorded();
  }

  /** Adds the dashboard's admin routes: its event stream. */
  addRoutes(router: Router<Handler>): void {
    router.add("GET", "/__admin/events", () => ({ kind: "stream", write: (res) => this.stream.attach(res) }));
  }

  /** Ends the event streams. */
  close(): void {
    this.stream.close();
  }
}

function plain(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(`${text}\n`);
  res.writeHead(status, {
    ...securityHeaders(),
    ...headers,
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(body.length),
  });
  res.end(body);
}
