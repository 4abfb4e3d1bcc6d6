import { z } from "zod";
import type { JsonReply } from "./http";
import { parseQuery } from "./validation";
import type { WatchHub } from "./watch";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const withinInt64 = (value: bigint): boolean => value >= INT64_MIN && value <= INT64_MAX;

/**
 * The `watch_index` query parameter as the service reads it: any number (an integer within int64, signed or not)
 * is a time in ms, so a negative one is an index more than 300 s old, answered at once (service facts §5). One
 * that is no number the service answers 500; the emulator, 400 naming it (docs/emulator.md lists the difference).
 * The client's own rule (`WatchIndex`) is stricter: it sends only an earlier answer's index.
 */
const WatchIndexQuery = z.object({
  watch_index: z
    .string()
    .regex(/^[+-]?\d{1,19}$/, {
      error: "must be a number (the watch.index of an earlier answer)",
      abort: true,
    })
    .refine((text) => withinInt64(BigInt(text)), {
      error: "must be a number within a 64-bit integer's range (the watch.index of an earlier answer)",
    }),
});

/**
 * Watchable data as one route shows it to one caller. Whatever `keys` and `render` return must
 * depend only on the emulator's data (every change to it goes through {@link WatchViews.changed})
 * and on what `cacheKey` names.
 */
export interface WatchedView {
  /** Names the view, e.g. `games:user:<identity id>`: equal keys must render equal answers. */
  cacheKey: string;
  /** The watch keys of the game updates that wake a watch of the view (docs/service-contract.md §5). */
  keys(): readonly string[];
  /** The answer without its `watch` field. */
  render(): Record<string, unknown>;
}

/** What a watchable answer needs of its request. */
export interface WatchRequest {
  readonly query: URLSearchParams;
  /** Aborts when the client goes away: a held watch ends unanswered. */
  readonly signal: AbortSignal;
}

/** How watches are held (see `EmulatorOptions`). */
export interface WatchTiming {
  now: () => number;
  watchHoldMs: number;
  watchMaxIndexAgeMs: number;
}

/** A view at one data version: its watch keys, and what was rendered of it so far. */
interface RenderedView {
  version: number;
  keys: readonly string[];
  /** `render()`'s result, and its JSON up to where the `watch` field goes. */
  data?: Record<string, unknown>;
  head?: string;
  /** The last answer, for the index it carries. */
  index?: number;
  reply?: JsonReply;
}

/**
 * The answers of watchable routes (docs/service-contract.md §5): when one is held, with which index,
 * and each view's rendering, kept until the data changes.
 */
export class WatchViews {
  private readonly views = new Map<string, RenderedView>();
  /** Counts changes of any data: rendered views stay valid until the next one. */
  private dataVersion = 0;

  constructor(
    private readonly watch: WatchHub,
    private readonly timing: WatchTiming,
  ) {}

  /**
   * Records a change to the data the routes show. The next answer of every view shows it; only
   * game updates (`wakes`: their watch keys) also wake held watches and move the index a watch
   * compares with (docs/service-contract.md §5). Player counts, display names, group membership and billing
   * wake nothing: they show at the next answer, at the latest when a held watch times out.
   */
  changed(wakes: readonly string[] = []): void {
    this.dataVersion++;
    if (wakes.length > 0) this.watch.bump(wakes);
  }

  /**
   * The request's `watch_index`, checked early (validation comes before existence): a number, else 400
   * `API_BAD_QUERY_PARAMETER`.
   */
  indexOf(ctx: WatchRequest): number | undefined {
    const raw = ctx.query.get("watch_index");
    if (raw === null) return undefined;
    return Number(parseQuery(WatchIndexQuery, { watch_index: raw }).watch_index);
  }

  /**
   * A watchable answer: at once without `watch_index` (its index is the answer's time plus one),
   * when a game update came after the index, or when the index is too old; otherwise held until
   * the next game update or `watchHoldMs`, then answered with the current data and a fresh index.
   * Answered synchronously unless it is held.
   */
  answerOf(
    ctx: WatchRequest,
    since: number | undefined,
    view: WatchedView,
  ): JsonReply | Promise<JsonReply | undefined> {
    const keys = this.viewOf(view).keys;
    if (since === undefined) return this.answer(view, this.watch.freshIndex(keys));
    const current = this.watch.index(keys);
    if (current > since) return this.answer(view, current);
    if (this.timing.now() - (since - 1) > this.timing.watchMaxIndexAgeMs)
      return this.answer(view, this.watch.freshIndex(keys));
    return this.held(ctx, view, keys);
  }

  private async held(
    ctx: WatchRequest,
    view: WatchedView,
    keys: readonly string[],
  ): Promise<JsonReply | undefined> {
    const reason = await this.watch.wait(keys, this.timing.watchHoldMs, ctx.signal);
    if (reason === "aborted") return undefined;
    // The index comes from the keys the request waited on, even if a change altered the view's keys.
    return this.answer(view, reason === "changed" ? this.watch.index(keys) : this.watch.freshIndex(keys));
  }

  /**
   * The view's answer at `index`. What a view renders is kept, serialized, until the data changes,
   * so answers that differ only in their index (every one without `watch_index` carries its own
   * time) do not render and serialize it again; watchers woken together by one change share the
   * very same bytes.
   */
  private answer(view: WatchedView, index: number): JsonReply {
    const cached = this.viewOf(view);
    if (cached.reply !== undefined && cached.index === index) return cached.reply;
    if (cached.data === undefined || cached.head === undefined) {
      cached.data = view.render();
      const json = JSON.stringify(cached.data);
      cached.head = json === "{}" ? "{" : `${json.slice(0, -1)},`;
    }
    const watch = { index: String(index) };
    const body = { ...cached.data, watch };
    const text = Buffer.from(`${cached.head}"watch":${JSON.stringify(watch)}}`);
    const reply: JsonReply = { kind: "json", status: 200, body, text };
    cached.index = index;
    cached.reply = reply;
    return reply;
  }

  /** The view at the current data version: its watch keys, and what was rendered of it. */
  private viewOf(view: WatchedView): RenderedView {
    let cached = this.views.get(view.cacheKey);
    if (cached === undefined || cached.version !== this.dataVersion) {
      cached = { version: this.dataVersion, keys: view.keys() };
      this.views.set(view.cacheKey, cached);
    }
    return cached;
  }
}
