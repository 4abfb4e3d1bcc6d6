import type { LOBBY_HISTORY_COLUMNS } from "../api/schemas/lobbies";
import type { Fixture, FixtureLobby, FixtureLobbyGenerator } from "./fixtureTypes";
import type { Game } from "./world";

/** A lobby as the fixture describes it (listed or generated). */
export type Lobby = FixtureLobby;
type LobbyGenerator = FixtureLobbyGenerator;

/** One CSV row: a value per column of `LOBBY_HISTORY_COLUMNS`, in that order. */
export type LobbyRow = RowOf<typeof LOBBY_HISTORY_COLUMNS>;
type RowOf<T extends readonly string[]> = { -readonly [K in keyof T]: string | number };

/** Small, fast, deterministic PRNG (mulberry32): the same seed yields the same lobbies everywhere. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const hex32 = (x: number) =>
  (HEX[x >>> 24] as string) +
  (HEX[(x >>> 16) & 255] as string) +
  (HEX[(x >>> 8) & 255] as string) +
  (HEX[x & 255] as string);

/** A version-4-shaped UUID from the PRNG (table-driven: it runs once per generated lobby). */
function uuidFrom(rand: () => number): string {
  const a = hex32((rand() * 4_294_967_296) >>> 0);
  const b = (rand() * 4_294_967_296) >>> 0;
  const c = (rand() * 4_294_967_296) >>> 0;
  const d = hex32((rand() * 4_294_967_296) >>> 0);
  const bh = hex32(b);
  const ch = hex32(((c & 0x3fffffff) | 0x80000000) >>> 0);
  return `${a}-${bh.slice(0, 4)}-4${bh.slice(5, 8)}-${ch.slice(0, 4)}-${ch.slice(4)}${d}`;
}

function pick<T>(items: readonly T[], rand: () => number): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** The lobbies of a generator, newest first (see {@link FixtureLobbyGenerator}). */
export function* generateLobbies(gen: LobbyGenerator, game: Game): Generator<Lobby> {
  const rand = mulberry32(gen.seed);
  const groupIds = gen.lobbyGroupNames.map(() => uuidFrom(rand));
  for (let i = 0; i < gen.count; i++) {
    const slotEnd = gen.endTs - i * gen.intervalMs;
    const startTs = slotEnd - Math.floor(rand() * gen.intervalMs);
    const stopTs = startTs + 1 + Math.floor(rand() * gen.maxDurationMs);
    const environment = pick(game.environments, rand);
    const groupIndex = Math.floor(rand() * gen.lobbyGroupNames.length);
    yield {
      id: uuidFrom(rand),
      gameId: game.id,
      environmentId: environment.id,
      regionId: pick(game.regions, rand).id,
      versionId: environment.versionId,
      tierName: pick(gen.tierNames, rand),
      lobbyGroupId: groupIds[groupIndex] as string,
      lobbyGroupName: gen.lobbyGroupNames[groupIndex] as string,
      startTs,
      ...(stopTs > gen.endTs ? {} : { stopTs }),
    };
  }
}

const newerFirst = (a: Lobby, b: Lobby) => b.startTs - a.startTs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Every lobby of a game, newest first: the fixture's list merged with its generators' streams, so a
 * million generated lobbies are never held in memory at once.
 */
export function* lobbiesOf(fixture: Fixture, game: Game): Generator<Lobby> {
  const sources: Iterator<Lobby>[] = [
    fixture.lobbies
      .filter((l) => l.gameId === game.id)
      .sort(newerFirst)
      [Symbol.iterator](),
  ];
  for (const gen of fixture.lobbyGenerators) {
    if (gen.gameId === game.id) sources.push(generateLobbies(gen, game));
  }
  const heads = sources.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i] as IteratorResult<Lobby>;
      if (head.done) continue;
      const current = best < 0 ? undefined : (heads[best] as IteratorYieldResult<Lobby>).value;
      if (!current || newerFirst(head.value, current) < 0) best = i;
    }
    if (best < 0) return;
    yield (heads[best] as IteratorYieldResult<Lobby>).value;
    heads[best] = (sources[best] as Iterator<Lobby>).next();
  }
}

/** A span the service accepts but that holds no lobby: backward, empty, or with a negative bound. */
export function spanHoldsNothing(start: number, end: number): boolean {
  return start >= end || start < 0 || end < 0;
}

/**
 * Whether an export of the span `(start, end]` includes the lobby (docs/service-contract.md §6): its create or
 * stop time lies in the span, or it is still running and was created at or before `end`. So a lobby
 * created after `end`, or stopped at or before `start`, never is. No range is checked: a span with
 * `start ≥ end`, or a negative bound, holds no lobby at all.
 */
export function inSpan(lobby: Lobby, start: number, end: number): boolean {
  if (spanHoldsNothing(start, end)) return false;
  const inside = (t: number) => t > start && t <= end;
  if (lobby.stopTs === undefined) return lobby.startTs <= end;
  return inside(lobby.startTs) || inside(lobby.stopTs);
}

/**
 * The CSV row of a lobby for the span, in `LOBBY_HISTORY_COLUMNS` order (arrays stream about twice
 * as fast as keyed objects through csv-stringify). `namespace_name` and `region_name` are name ids
 * (`prod`, `us-east`), not display names; uptime runs to the stop (or the span's end), and its part
 * in the span is its overlap with `(start, end]`.
 */
export function lobbyRow(game: Game, lobby: Lobby, start: number, end: number): LobbyRow {
  const environment = game.environments.find((e) => e.id === lobby.environmentId);
  const region = game.regions.find((r) => r.id === lobby.regionId);
  const version = game.versions.find((v) => v.id === lobby.versionId);
  const until = lobby.stopTs ?? end;
  return [
    lobby.id,
    lobby.environmentId,
    environment?.nameId ?? "",
    lobby.regionId,
    region?.nameId ?? "",
    lobby.tierName,
    lobby.versionId,
    version?.displayName ?? "",
    lobby.lobbyGroupId,
    lobby.lobbyGroupName,
    lobby.startTs,
    lobby.stopTs ?? "",
    until - lobby.startTs,
    Math.max(0, Math.min(until, end) - Math.max(lobby.startTs, start)),
  ];
}
