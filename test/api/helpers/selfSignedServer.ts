/**
 * An HTTPS server on 127.0.0.1 whose certificate is self-signed (as one from a private authority looks to
 * Node), counting the connections clients open: a refused handshake sends no request to count.
 */
import * as fs from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

/** The certificate the server presents (its own authority): what NODE_EXTRA_CA_CERTS would name. */
export const SELF_SIGNED_CERT = path.join(__dirname, "selfSigned.cert.pem");

/** What the server answers every request: the service's list of games, empty. */
export const EMPTY_GAME_LIST = { games: [], groups: [], watch: { index: "1" } };

export interface SelfSignedServer {
  readonly url: string;
  /** Connections opened so far (each attempt of a client opens one). */
  readonly connections: () => number;
  readonly close: () => Promise<void>;
}

export async function startSelfSigned(): Promise<SelfSignedServer> {
  let connections = 0;
  const server = createServer(
    {
      key: fs.readFileSync(path.join(__dirname, "selfSigned.key.pem")),
      cert: fs.readFileSync(SELF_SIGNED_CERT),
    },
    // A client that trusts the certificate gets an answer.
    (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(EMPTY_GAME_LIST));
    },
  );
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
