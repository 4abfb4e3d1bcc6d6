/**
 * A user's test code on `pulumi-gamehost/emulator`: a fixture written inline, faults, mutations and the
 * request log, type-checked in fresh projects from both Pulumi templates as they are (the older one has no
 * `esModuleInterop`: the subpath's declarations must not reach zod's). The `@ts-expect-error` lines fail
 * the check if the types ever degrade to `any`.
 */
import {
  DEFAULT_FIXTURE_PATH,
  FAULT_KINDS,
  type FaultKind,
  type Fixture,
  type FixtureInput,
  loadFixture,
  type NewEnvironment,
  type PlacementMode,
  type RunningEmulator,
  startEmulator,
} from "pulumi-gamehost/emulator";

export async function rateLimitedOnce(): Promise<string[]> {
  const base: Fixture = loadFixture(DEFAULT_FIXTURE_PATH);
  // A parsed fixture can be given back, changed; the fields with a default may be left out.
  const fixture: FixtureInput = { ...base, lobbies: undefined, billingEnabled: false };
  const placement: PlacementMode = "never";
  const emulator: RunningEmulator = await startEmulator({ fixture, placement, watchHoldMs: 500 });
  try {
    const kind: FaultKind = FAULT_KINDS[0];
    emulator.faults.inject({ kind, pathGlob: "/cloud/games/**", count: 2, retryAfter: "seconds" });
    // @ts-expect-error a fault is one of FAULT_KINDS
    emulator.faults.inject({ kind: "explode" });
    const game = base.games[0];
    const version = game?.versions[0];
    if (game && version) {
      const environment: NewEnvironment = {
        nameId: "staging",
        displayName: "Staging",
        versionId: version.id,
      };
      emulator.mutate.createEnvironment(game.id, environment);
      // @ts-expect-error a version needs its display name
      emulator.mutate.publishVersion(game.id, {});
    }
    const ports: number[] = emulator
      .servers()
      .flatMap((s) => Object.values(s.network.ports).map((p) => p.internal_port ?? 0));
    return [...emulator.requests.map((r) => `${r.status} ${r.route}`), String(ports.length)];
  } finally {
    await emulator.stop();
  }
}
