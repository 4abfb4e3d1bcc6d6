/** A valid Server's inputs as the kind checks them, for tests of the kind's own rules (no emulator ids). */
import type { ServerInputs } from "../../src/kinds/server/spec";

/** A UUID that every id field accepts. */
export const SAMPLE_ID = "11111111-1111-4111-8111-111111111111";

/** A Server's inputs: one HTTP port, one build, one tag. */
export const SAMPLE_SERVER_INPUTS: Readonly<ServerInputs> = {
  gameId: SAMPLE_ID,
  environmentId: SAMPLE_ID,
  datacenter: SAMPLE_ID,
  tags: { role: "lobby" },
  runtime: { build: SAMPLE_ID },
  network: { ports: { web: { protocol: "http", internalPort: 8080 } } },
  resources: { cpu: 1000, memory: 512 },
  idempotencyKey: "",
};
