/**
 * What a failure leaves, through the real `pulumi` CLI on both faces: a base URL with a wrong path prefix makes
 * `refresh` and `destroy` fail and keep every server, where forgetting them would orphan them; then, on the same
 * stack, a create whose answer is lost is adopted (exactly one server, in the state); a program without a token
 * fails in its data sources, before any call. The printed words of each failure are test/cli/failures'.
 */
import { describe, expect, it } from "vitest";
import {
  FACES,
  IDEMPOTENCY_TAG,
  ROUTES,
  SERVERS_KEY,
  serverArgs,
  serversTagged,
  TYPES,
} from "../engine/helpers";
import { liveServers } from "../support/emulator";
import { quickstartOnFace } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { configure, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("what a failure leaves"), () => {
  const env = useCliEnvironment("aftermath");

  describe.each(FACES)("the %s face", (face) => {
    const serverType = TYPES[face].server;

    // One stack for both: the up that records the right base URL again also makes the server whose answer is lost
    // (a stack of its own made, deployed and destroyed the same program a second time).
    it("a base URL with a wrong path prefix: refresh and destroy fail and keep every server; a create whose answer is lost adopts the server the service made", {
      timeout: SCENARIO_TIMEOUT_MS,
    }, async () => {
      const { emulator } = env;
      const servers = {
        a: serverArgs(emulator, { tags: { role: `prefix-a-${face}` } }),
        b: serverArgs(emulator, { tags: { role: `prefix-b-${face}` } }),
      };
      const cli = await serversProject(env.root, `prefix-${face}`, emulator, servers, { face });
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const ids = await cli.stateIds([serverType]);
      expect(Object.keys(ids).sort()).toEqual(["a", "b"]);

      // Every route then answers 404 API_NOT_FOUND: an unknown route, never a gone server. Refresh and destroy
      // use the provider configuration of the last program run, so an up records it first: one that changes
      // no server and so calls nothing.
      await cli.setConfig({ "gamehost:baseUrl": { value: `${emulator.url}/api/v1` } });
      emulator.resetRequests();
      const steps = await cli.stepsOf(["up", "--yes", "--skip-preview"], [serverType]);
      expect(steps.sort()).toEqual([
        ["same", "a"],
        ["same", "b"],
      ]);
      expect(emulator.requests).toEqual([]);

      expect(await cli.fails(["refresh", "--yes", "--skip-preview"])).toMatch(/404 API_NOT_FOUND/);
      expect(await cli.stateIds([serverType])).toEqual(ids);
      expect(await cli.fails(["destroy", "--yes", "--skip-preview"])).toMatch(/404 API_NOT_FOUND/);
      expect(await cli.stateIds([serverType])).toEqual(ids);
      const live = liveServers(emulator).map((s) => s.id);
      expect(live).toEqual(expect.arrayContaining(Object.values(ids)));

      // The right base URL again, and a third server whose create's answer is lost: the service makes it, the
      // connection drops before the answer (status 0), and the provider adopts it: exactly one, in the state.
      await cli.setConfig({
        "gamehost:baseUrl": { value: emulator.url },
        [SERVERS_KEY]: {
          value: JSON.stringify({
            ...servers,
            lost: serverArgs(emulator, { tags: { role: `lost-answer-${face}` } }),
          }),
        },
      });
      emulator.resetRequests();
      emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "commit_then_reset" });
      expect((await cli.stepsOf(["up", "--yes", "--skip-preview"], [serverType])).sort()).toEqual([
        ["create", "lost"],
        ["same", "a"],
        ["same", "b"],
      ]);
      expect(emulator.faults.pending()).toEqual([]);
      const posts = emulator.requests.filter((r) => r.route === ROUTES.createServer);
      expect(posts.map((r) => r.status)).toEqual([0]);
      const { lost: lostId } = await cli.stateIds([serverType]);
      const { idempotencyKeys } = (await cli.outputsJson()) as { idempotencyKeys: Record<string, string> };
      const withKey = serversTagged(emulator, IDEMPOTENCY_TAG, idempotencyKeys.lost ?? "");
      expect(withKey.map((s) => s.id)).toEqual([lostId]);
      expect(withKey[0]?.destroyed_at).toBeUndefined();
      expect(withKey[0]?.started_at).toBeDefined();

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      const left = liveServers(emulator).filter((s) => [...Object.values(ids), lostId].includes(s.id));
      expect(left).toEqual([]);
      cli.expectNoLeak(emulator.tokens.user);
    });
  });

  it("no token: the quickstart's data sources fail with the one message, before any call", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = env;
    const cli = new CliProject(quickstartOnFace(env.root, "dynamic", "quickstart-no-token"), env.root);
    await configure(cli, {
      "gamehost:baseUrl": { value: emulator.url },
      "gamehost-quickstart:game": { value: emulator.fixture.games[0]?.nameId ?? "" },
    });
    const liveBefore = liveServers(emulator).length;
    emulator.resetRequests();

    const output = await cli.fails(["up", "--yes", "--skip-preview"]);

    const diagnostics = output.slice(output.indexOf("Diagnostics:"));
    const message =
      "Configuration gamehost:token is not set: run `pulumi config set --secret gamehost:token <value>` or set the GAMEHOST_TOKEN environment variable.";
    expect(diagnostics).toContain(message);
    expect(output, "no stack trace").not.toMatch(/^\s+at /m);
    expect(emulator.requests).toEqual([]);
    expect(liveServers(emulator)).toHaveLength(liveBefore);
    expect(await cli.stateIds([TYPES.dynamic.server])).toEqual({});
  });
});
