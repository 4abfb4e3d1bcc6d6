/**
 * SIGINT to `pulumi up` while its creates wait for placement, through the real CLI on both faces: the
 * CLI's cancel reaches the provider (the plugin's Cancel RPC ends its waits; the dynamic provider host
 * has none: its creates run to their readiness deadline), the next `up` converges, and the live servers of the run's tag are exactly the stack's:
 * none orphaned, none twice. A pending create left in the state is recovered as docs/reliability.md
 * ("A killed process during a create") says.
 */
import { describe, expect, it } from "vitest";
import {
  FACES,
  fixtureIds,
  IDEMPOTENCY_TAG,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
  serversTagged,
  TYPES,
} from "../engine/helpers";
import { userClient } from "../support/emulator";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { until } from "../support/until";
import { configure, useCliEnvironment } from "./helpers";

const NAMES = ["a", "b", "c"];
/**
 * The creates' readiness deadline. The plugin's Cancel ends the waits at once; the dynamic provider
 * host has no Cancel, so the CLI waits for its creates to reach this deadline (kept short).
 */
const READY_TIMEOUT_S = { plugin: 120, dynamic: 15 } as const;

interface PendingOperation {
  type: string;
  resource: { urn: string; inputs?: Record<string, unknown> };
}

describe.skipIf(!realCli)(realCliTitle("SIGINT during creates"), () => {
  const setup = useCliEnvironment("interrupt");

  it.each(FACES)(
    "the %s face: cancel reaches the provider, the next up converges, 0 orphans, 0 duplicates",
    {
      timeout: 900_000,
    },
    async (face) => {
      const run = `interrupt-${face}`;
      const cli = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT, plugin: true });
      const servers = Object.fromEntries(
        NAMES.map((n) => [
          n,
          serverArgs(setup.emulator, { tags: { run }, readyTimeoutSeconds: READY_TIMEOUT_S[face] }),
        ]),
      );
      await configure(cli, {
        "gamehost:baseUrl": { value: setup.emulator.url },
        "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
        [`${SERVERS_PROJECT}:face`]: { value: face },
        [SERVERS_KEY]: { value: servers },
      });
      const tagged = () => serversTagged(setup.emulator, "run", run);

      setup.emulator.setPlacement("never");
      const up = cli.start(["up", "--yes", "--skip-preview"]);
      let interrupted: number;
      let result: Awaited<typeof up.done>;
      try {
        await until(() => tagged().length === NAMES.length, "the three creates");
        interrupted = Date.now();
        up.child.kill("SIGINT");
        result = await up.done;
      } finally {
        setup.emulator.setPlacement("auto");
      }
      const stoppedAfterMs = Date.now() - interrupted;
      const output = `${result.stdout}\n${result.stderr}`;
      console.info(`--- ${face}: exit ${result.code} ${stoppedAfterMs} ms after SIGINT\n${output}`);
      expect(result.code).not.toBe(0);
      // The waits ended on the cancel, not on readyTimeoutSeconds (120 s).
      expect(stoppedAfterMs).toBeLessThan(90_000);

      const exported = JSON.parse(await cli.ok(["stack", "export"])) as {
        deployment: { pending_operations?: PendingOperation[] };
      };
      const pending = exported.deployment.pending_operations ?? [];
      console.info(
        `--- ${face}: pending operations after SIGINT: ${JSON.stringify(pending.map((p) => [p.type, p.resource.urn]))}`,
      );
      if (pending.length > 0) {
        // docs/reliability.md: delete the server the pending create made (found by its key), then clear.
        const client = userClient(setup.emulator);
        for (const op of pending) {
          const key = String(op.resource.inputs?.idempotencyKey ?? "");
          for (const s of tagged().filter(
            (s) => s.destroyed_at === undefined && s.tags[IDEMPOTENCY_TAG] === key,
          )) {
            await client.deleteServer(fixtureIds(setup.emulator).gameId, s.environment, s.id);
          }
        }
        await cli.ok(["refresh", "--yes", "--skip-preview", "--clear-pending-creates"]);
      }

      await cli.ok(["up", "--yes", "--skip-preview"]);
      const state = Object.values(await cli.stateIds([TYPES[face].server])).sort();
      const live = tagged()
        .filter((s) => s.destroyed_at === undefined)
        .map((s) => s.id)
        .sort();
      expect(state).toHaveLength(NAMES.length);
      expect(live).toEqual(state);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(tagged().filter((s) => s.destroyed_at === undefined)).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );
});
