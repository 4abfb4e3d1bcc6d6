import { bearerToken } from "../auth";
import type { RequestLogEntry } from "../exchange";
import type { World } from "../world";

/** One API request as the dashboard's requests monitor shows it: who sent it, never their token. */
export interface MonitoredRequest {
  /** Increases by one per request: the page asks for what came after the last one it has. */
  seq: number;
  /** When it was answered (epoch ms). */
  at: number;
  method: string;
  route: string;
  path: string;
  /** 0 when the connection was dropped without an answer. */
  status: number;
  /** From the request's arrival to its answer, ms. */
  ms: number;
  /** The token's identity (a user's name, a game's cloud token), `none`, or `unknown token`. */
  identity: string;
}

/**
 * The newest requests in a fixed ring, so the monitor's memory stays flat however long the emulator runs.
 * Entries since the last {@link drain} wait for the live stream.
 */
export class RequestMonitor {
  private readonly ring: (MonitoredRequest | undefined)[];
  private next = 0;
  private fresh: MonitoredRequest[] = [];
  private readonly names: Map<string, string>;

  constructor(
    private readonly world: World,
    private readonly now: () => number,
    readonly capacity = 500,
  ) {
    this.ring = new Array(capacity);
    this.names = new Map(world.fixture.identities.map((i) => [i.id, i.displayName]));
  }

  /** Records an answered request; `authorization` is only read to name who sent it. */
  record(entry: RequestLogEntry, ms: number, authorization: string | undefined): void {
    const request: MonitoredRequest = {
      seq: this.next,
      at: this.now(),
      method: entry.method,
      route: entry.route,
      path: entry.path,
      status: entry.status,
      ms: Math.round(ms * 100) / 100,
      identity: this.identityOf(authorization),
    };
    this.ring[this.next % this.capacity] = request;
    this.next++;
    // Bounded too: nobody may be draining (no page open).
    if (this.fresh.length < this.capacity) this.fresh.push(request);
  }

  /** The retained requests, oldest first. */
  recent(): MonitoredRequest[] {
    const out: MonitoredRequest[] = [];
    for (let seq = Math.max(0, this.next - this.capacity); seq < this.next; seq++) {
      const r = this.ring[seq % this.capacity];
      if (r) out.push(r);
    }
    return out;
  }

  /** The requests recorded since the last drain. */
  drain(): MonitoredRequest[] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }

  /** Forgets what the live stream has not sent yet (nobody is listening). */
  discardFresh(): void {
    this.fresh = [];
  }

  private identityOf(authorization: string | undefined): string {
    const token = bearerToken(authorization);
    if (token === undefined) return "none";
    const entry = this.world.tokens.get(token);
    if (!entry) return "unknown token";
    if (entry.kind === "cloud") {
      const game = this.world.games.get(entry.gameId);
      return `cloud token of ${game?.nameId ?? entry.gameId}`;
    }
    return `user ${this.names.get(entry.identityId) ?? entry.identityId}`;
  }
}
