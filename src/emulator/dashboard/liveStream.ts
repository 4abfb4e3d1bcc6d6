import type { ServerResponse } from "node:http";
import type { Change } from "../changeFeed";
import type { EmulatorCore } from "../core";
import type { LiveView } from "./liveView";
import type { RequestMonitor } from "./requestMonitor";
import { securityHeaders } from "./security";

/** Timings of the live stream. */
export interface LiveStreamOptions {
  /** Changes are gathered this long and sent together (a burst of creates is one event). */
  flushMs: number;
  /** How often the status (faults, watchers, placement, outages) is compared and sent when it changed. */
  statusMs: number;
  /** A comment line this often keeps idle connections and proxies from timing out. */
  pingMs: number;
  /** A page that reads slower than this many bytes are queued for it is dropped; it reconnects. */
  maxBufferedBytes: number;
}

const DEFAULTS: LiveStreamOptions = {
  flushMs: 250,
  statusMs: 500,
  pingMs: 15_000,
  maxBufferedBytes: 16 * 1024 * 1024,
};

/** Destroyed servers in a first snapshot beyond the live ones: the newest few, enough for a page. */
const DESTROYED_IN_SNAPSHOT = 1000;

/**
 * The dashboard's server-sent events: a snapshot when a page connects, then what changed, gathered
 * for {@link LiveStreamOptions.flushMs}. The emulator listens to its change feed only while a page is
 * connected, so without one the dashboard costs nothing.
 */
export class LiveStream {
  private readonly clients = new Set<ServerResponse>();
  private readonly dirtyServers = new Set<string>();
  private readonly dirtyExports = new Set<string>();
  private dataDirty = false;
  private requestsDirty = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private lastStatus = "";
  private unlisten: (() => void) | undefined;
  private readonly options: LiveStreamOptions;

  constructor(
    private readonly core: EmulatorCore,
    private readonly view: LiveView,
    private readonly monitor: RequestMonitor,
    options: Partial<LiveStreamOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Pages connected now. */
  get size(): number {
    return this.clients.size;
  }

  /** Starts an event stream on `res`: the snapshot first, then changes until the page goes away. */
  attach(res: ServerResponse): void {
    res.writeHead(200, {
      ...securityHeaders(),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    if (this.clients.size === 0) this.start();
    this.clients.add(res);
    res.on("close", () => this.detach(res));
    this.lastStatus = JSON.stringify(this.view.status());
    const servers = [...this.core.servers.values()];
    const destroyed = servers
      .filter((r) => r.server.destroyed_at !== undefined)
      .sort((a, b) => (b.server.destroyed_at ?? 0) - (a.server.destroyed_at ?? 0))
      .slice(0, DESTROYED_IN_SNAPSHOT);
    const shown = [...servers.filter((r) => r.server.destroyed_at === undefined), ...destroyed];
    this.send(
      res,
      "snapshot",
      JSON.stringify({
        now: this.core.now(),
        games: this.view.games(),
        servers: shown.map((r) => this.view.server(r)),
        exports: this.view.exports(),
        lobbies: this.view.lobbies(),
        status: JSON.parse(this.lastStatus),
        requests: this.monitor.recent(),
      }),
    );
  }

  /** A request was recorded by the monitor: it goes out with the next flush. */
  requestRecorded(): void {
    if (this.clients.size === 0) return;
    this.requestsDirty = true;
    this.schedule();
  }

  /** Ends every stream (the emulator stops). */
  close(): void {
    for (const res of [...this.clients]) res.end();
    this.stop();
  }

  private start(): void {
    // What was recorded while no page listened is in the first page's snapshot: not news to send again.
    this.monitor.discardFresh();
    this.unlisten = this.core.feed.listen((change) => this.onChange(change));
    this.statusTimer = setInterval(() => this.sendStatusIfChanged(), this.options.statusMs);
    this.pingTimer = setInterval(() => this.broadcast(": ping\n\n"), this.options.pingMs);
    this.statusTimer.unref();
    this.pingTimer.unref();
  }

  private stop(): void {
    this.unlisten?.();
    this.unlisten = undefined;
    clearInterval(this.statusTimer);
    clearInterval(this.pingTimer);
    clearTimeout(this.flushTimer);
    this.statusTimer = this.pingTimer = this.flushTimer = undefined;
    this.dirtyServers.clear();
    this.dirtyExports.clear();
    this.dataDirty = this.requestsDirty = false;
    this.monitor.discardFresh();
  }

  private detach(res: ServerResponse): void {
    if (!this.clients.delete(res)) return;
    if (this.clients.size === 0) this.stop();
  }

  private onChange(change: Change): void {
    if (change.kind === "server") this.dirtyServers.add(change.id);
    else if (change.kind === "export") this.dirtyExports.add(change.id);
    else this.dataDirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => this.flush(), this.options.flushMs);
  }

  private flush(): void {
    this.flushTimer = undefined;
    let out = "";
    if (this.dataDirty) {
      this.dataDirty = false;
      out += event("games", JSON.stringify(this.view.games()));
      this.sendStatusIfChanged();
    }
    if (this.dirtyServers.size > 0) {
      const servers = [...this.dirtyServers].map((id) => this.view.serverById(id));
      this.dirtyServers.clear();
      out += event("servers", JSON.stringify(servers));
    }
    if (this.dirtyExports.size > 0) {
      const exports = [...this.dirtyExports].map((id) => this.view.exportOf(id));
      this.dirtyExports.clear();
      out += event("exports", JSON.stringify(exports));
    }
    if (this.requestsDirty) {
      this.requestsDirty = false;
      const requests = this.monitor.drain();
      if (requests.length > 0) out += event("requests", JSON.stringify(requests));
    }
    if (out !== "") this.broadcast(out);
  }

  private sendStatusIfChanged(): void {
    const status = JSON.stringify(this.view.status());
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    this.broadcast(event("status", status));
  }

  private send(res: ServerResponse, name: string, data: string): void {
    this.write(res, event(name, data));
  }

  private broadcast(text: string): void {
    for (const res of this.clients) this.write(res, text);
  }

  private write(res: ServerResponse, text: string): void {
    if (res.writableLength > this.options.maxBufferedBytes) {
      // A page that cannot keep up is dropped rather than buffered without end; it reconnects.
      res.destroy();
      this.detach(res);
      return;
    }
    res.write(text);
  }
}

function event(name: string, data: string): string {
  return `event: ${name}\ndata: ${data}\n\n`;
}
