// A program that reads game data as users write it, on the face and in the form that FACE (`root` or
// `native`) and FORM (`output` or `promise`) name; the stack's config makes the first lookup fail.
import * as pulumi from "@pulumi/pulumi";
import * as root from "pulumi-gamehost";
import * as native from "pulumi-gamehost/native";

const config = new pulumi.Config();
const gamehost = process.env.FACE === "native" ? (native as unknown as typeof root) : root;
const game = config.require("game");

/**
 * The Output form, chained as in the quickstart: the ids feed two more lookups and the outputs; the list of
 * games is a lookup of its own, which a wrong token or URL fails too.
 */
function outputForm() {
  const games = gamehost.getGamesOutput();
  const env = gamehost.getEnvironmentOutput({ game, environment: "prod" });
  const scope = { gameId: env.gameId, environmentId: env.environmentId };
  const datacenters = gamehost.getDatacentersOutput({ ...scope });
  const builds = gamehost.getBuildsOutput({ ...scope });
  return {
    games: games.apply((g) => g.games.length),
    scope: pulumi.all([scope.gameId, scope.environmentId]).apply(([g, e]) => `${g}/${e}`),
    datacenter: datacenters.apply((d) => d.datacenters[0]?.id),
    build: builds.apply((b) => b.builds[0]?.id),
  };
}

/** The Promise form, awaited in the program's async entry point. */
async function promiseForm() {
  const env = await gamehost.getEnvironment({ game, environment: "prod" });
  const { datacenters } = await gamehost.getDatacenters({
    gameId: env.gameId,
    environmentId: env.environmentId,
  });
  return { datacenter: datacenters[0]?.id };
}

/**
 * Servers declared in a loop from the lookups, and an export that waits on none of them: the program's main
 * has returned when the lookups fail, so the SDK prints the failure as it prints a late rejection.
 */
function declaredForm() {
  const env = gamehost.getEnvironmentOutput({ game, environment: "prod" });
  const datacenters = gamehost.getDatacentersOutput({ gameId: env.gameId, environmentId: env.environmentId });
  for (const mode of ["duel", "squad"]) {
    new gamehost.Server(mode, {
      gameId: env.gameId,
      environmentId: env.environmentId,
      datacenter: datacenters.apply((d) => d.datacenters[0]?.id ?? ""),
      tags: { mode },
      runtime: { build: "00000000-0000-4000-8000-000000000009" },
      network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
      resources: { cpu: 100, memory: 128 },
    });
  }
  return { modes: 2 };
}

export = process.env.FORM === "promise"
  ? promiseForm
  : process.env.FORM === "declared"
    ? declaredForm()
    : outputForm();
