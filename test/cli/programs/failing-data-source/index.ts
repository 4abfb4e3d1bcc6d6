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

export = process.env.FORM === "promise" ? promiseForm : outputForm();
