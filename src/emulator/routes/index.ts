import type { Handler } from "../core";
import { Router } from "../router";
import { createPaymentPortalSession, getBootstrap, getGame, getGroupBilling, listGames } from "./cloud";
import { downloadExport, exportLobbyHistory } from "./exports";
import { createServer, deleteServer, getServer, listBuilds, listDatacenters, listServers } from "./servers";

/** Pattern of the presigned export download (not rate limited: it stands for object storage). */
export const EXPORT_DOWNLOAD_ROUTE = "/__exports/:upload/export.csv";

/**
 * What a route asks of the caller before its handler runs: a bearer token (`token`, most routes),
 * none but one that is sent is checked (`optional`, bootstrap), or nothing at all because the URL
 * itself is the credential and the route stands for object storage, outside the API's rate limits
 * (`presigned`, the export download).
 */
export type RouteAccess = "token" | "optional" | "presigned";

const ACCESS: Readonly<Record<string, RouteAccess>> = {
  "/cloud/bootstrap": "optional",
  [EXPORT_DOWNLOAD_ROUTE]: "presigned",
};

/** The access rule of a route pattern. */
export function accessOf(pattern: string): RouteAccess {
  return ACCESS[pattern] ?? "token";
}

const SERVERS = "/games/:game/environments/:env";

/** Every route of the service, plus the presigned export download. */
export function apiRouter(): Router<Handler> {
  return new Router<Handler>()
    .add("GET", "/cloud/bootstrap", getBootstrap)
    .add("GET", "/cloud/games", listGames)
    .add("GET", "/cloud/games/:game", getGame)
    .add("POST", "/cloud/games/:game/matchmaker/lobbies/export-history", exportLobbyHistory)
    .add("GET", "/cloud/groups/:group/billing", getGroupBilling)
    .add("POST", "/cloud/groups/:group/billing/payment-portal-session", createPaymentPortalSession)
    .add("POST", `${SERVERS}/servers`, createServer)
    .add("GET", `${SERVERS}/servers`, listServers)
    .add("GET", `${SERVERS}/servers/:server`, getServer)
    .add("DELETE", `${SERVERS}/servers/:server`, deleteServer)
    .add("GET", `${SERVERS}/datacenters`, listDatacenters)
    .add("GET", `${SERVERS}/builds`, listBuilds)
    .add("GET", EXPORT_DOWNLOAD_ROUTE, downloadExport);
}
