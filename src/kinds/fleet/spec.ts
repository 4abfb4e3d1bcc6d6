/**
 * The Fleet's inputs, outputs and checks. A fleet's servers are Servers in everything but their
 * bookkeeping: their spec is the template plus a datacenter, checked by the Server's own rules.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { snakeToCamel } from "../../api/case";
import { CreateServerRequest, Uuid } from "../../api/schemas";
import { UNKNOWN_FIELD, unknownFieldReason } from "../../api/validate";
import { type CheckFailure, checkWire, UNKNOWN } from "../checks";
import { SERIALIZED_PROVIDER_FIELD } from "../fields";
import type { CheckContext } from "../kind";
import {
  checkServerInputs,
  IDEMPOTENCY_TAG,
  isIdempotencyKey,
  newIdempotencyKey,
  type ServerInputs,
  ServerKnobs,
  type ServerSpecBody,
} from "../server/spec";
import { FLEET_SLOT_TAG, FLEET_TAG, FLEET_TAGS } from "../server/tags";

const RESERVED_TAGS = [IDEMPOTENCY_TAG, ...FLEET_TAGS] as readonly string[];

/** Every way a rollout bound can be wrong gets the whole answer: a user who wrote "abc" may have meant a count. */
const COUNT_OR_PERCENT =
  'must be a count (a whole number ≥ 0, e.g. 1) or a whole percentage from "0%" to "100%" (e.g. "25%")';

/** A count or a percentage of the datacenter's count, as Agones writes rollout bounds. */
const CountOrPercent = z.union(
  [
    z.number().int({ error: COUNT_OR_PERCENT }).min(0, { error: COUNT_OR_PERCENT }),
    z.string().regex(/^(100|[1-9]?[0-9])%$/, { error: COUNT_OR_PERCENT }),
  ],
  { error: COUNT_OR_PERCENT },
);

const MAX_DATACENTER_COUNT = 1000;
const DATACENTER_COUNT = `must be a whole number from 0 to ${MAX_DATACENTER_COUNT}`;

export const Rollout = z
  .strictObject({
    maxSurge: CountOrPercent.optional().describe(
      'Most servers a datacenter may have above its count while a template change rolls out: a count or a percentage of the count, rounded up (default "25%", as Agones).',
    ),
    maxUnavailable: CountOrPercent.optional().describe(
      'Most servers of a datacenter\'s count that may be not ready while a template change rolls out: a count or a percentage of the count, rounded down (default "25%", as Agones). When both bounds come to 0, maxUnavailable is 1.',
    ),
  })
  .meta({ id: "FleetRollout", description: "How a template change rolls out in each datacenter." });

/** The server spec of every server of the fleet: a Server's create body without its datacenter. */
export const FleetTemplate = CreateServerRequest.omit({ datacenter: true }).meta({
  id: "FleetTemplate",
  description:
    "The spec of every server of the fleet, as a Server takes it without game, environment and datacenter.",
});

/** The fleet's own inputs (its scope comes from {@link ServerScope}, its knobs from the Server's). */
export const FleetSpec = z.strictObject({
  template: FleetTemplate.describe(
    "The spec of every server, as a Server takes it without game, environment and datacenter (`runtime`, `resources`, `network`, `tags`, `lifecycle`). A change rolls out datacenter by datacenter within `rollout`.",
  ),
  datacenters: z
    .record(
      z.string().min(1),
      z
        .number({ error: DATACENTER_COUNT })
        .int({ error: DATACENTER_COUNT })
        .min(0, { error: DATACENTER_COUNT })
        .max(MAX_DATACENTER_COUNT, { error: DATACENTER_COUNT }),
    )
    .describe(
      "Datacenter UUID or slug (see getDatacenters) → how many servers run there (0 to 1000). A count change creates or deletes only the difference; scaling down removes servers that are not ready first, then the newest.",
    ),
  rollout: Rollout.optional().describe(
    'How a template change rolls out: `maxSurge` and `maxUnavailable` (default "25%" each, as Agones).',
  ),
});

/** The Server's knobs a fleet takes (adopting one server has no meaning for a fleet). */
export const FleetKnobs = ServerKnobs.omit({ adoptServerId: true });

export const FleetServer = z
  .object({
    id: z.string().describe("The server's UUID."),
    endpoints: z.record(z.string(), z.string()).describe("Port name → `host:port`, once placed."),
    build: z.string().describe("UUID of the build the server runs."),
    state: z.enum(["ready", "starting"]).describe("`ready` (placed, every port addressed) or `starting`."),
    slot: z
      .number()
      .int()
      .describe("The server's slot in its datacenter (its idempotency key derives from it)."),
    generation: z
      .number()
      .int()
      .describe("The fleet generation (template version) the server was made from."),
    createdAt: z.number().int().describe("When the server was created, epoch ms."),
  })
  .meta({ id: "FleetServer", description: "A server of the fleet." });
export type FleetServer = z.infer<typeof FleetServer>;

export const FleetDatacenterStatus = z
  .object({
    datacenter: z.string().describe("The datacenter's UUID."),
    readyCount: z.number().int().describe("Servers that are ready."),
    nextSlot: z.number().int().describe("The slot the next server made here takes."),
    servers: z.array(FleetServer).describe("The datacenter's servers, oldest first."),
  })
  .meta({ id: "FleetDatacenterStatus", description: "A datacenter of the fleet: its servers." });
export type FleetDatacenterStatus = z.infer<typeof FleetDatacenterStatus>;

export const FleetComputedOutputs = z.object({
  fleetKey: z
    .string()
    .describe(
      "Random key chosen for the fleet when it was created, put on each of its servers as the reserved tag `pulumi-gamehost/fleet`; each server's idempotency key derives from it, its datacenter and its slot. Import a fleet by `<gameId>/<environmentId>/<fleetKey>`.",
    ),
  generation: z
    .number()
    .int()
    .describe("The template's version: 1 at creation, one more at each template change."),
  status: z
    .record(z.string(), FleetDatacenterStatus)
    .describe("Per datacenter (keyed as in `datacenters`): its servers and how many are ready."),
});

/** Checked inputs of a Fleet. */
export type FleetInputs = {
  gameId: string;
  environmentId: string;
  template: Omit<ServerSpecBody, "datacenter">;
  datacenters: Record<string, number>;
  rollout?: z.infer<typeof Rollout>;
  fleetKey: string;
} & z.infer<typeof FleetKnobs>;

/** Everything the provider returns: the inputs echoed, the generation and the servers. */
export type FleetOutputs = FleetInputs & {
  generation: number;
  status: Record<string, FleetDatacenterStatus>;
};

/** Every input property, from the schemas. */
export const FLEET_INPUT_FIELDS: readonly string[] = [
  "gameId",
  "environmentId",
  ...FleetSpec.keyof().options,
  ...FleetKnobs.keyof().options,
];

/** Inputs whose change replaces the fleet (its servers belong to one game environment). */
export const FLEET_REPLACE_FIELDS = ["gameId", "environmentId"] as const;

/** Inputs whose change is an update of the fleet (a scale, a rollout, new bounds): all but {@link FLEET_REPLACE_FIELDS}. */
export const FLEET_UPDATE_FIELDS: readonly string[] = FLEET_INPUT_FIELDS.filter(
  (k) => !(FLEET_REPLACE_FIELDS as readonly string[]).includes(k),
);

/** A datacenter id to check the template with (the Server's rules need one; the fleet's come later). */
const SOME_DATACENTER = "00000000-0000-4000-8000-000000000000";

/** The template's fields, in camelCase as a program writes them. */
const TEMPLATE_FIELDS = FleetTemplate.keyof().options.map(snakeToCamel);

const KNOB_KEYS = FleetKnobs.keyof().options as readonly string[];

/** Validates raw inputs: the template by the Server's rules, the rest by the fleet's schemas. */
export function checkFleetInputs(news: Record<string, unknown>): CheckFailure[] {
  const {
    gameId,
    environmentId,
    template,
    datacenters,
    rollout,
    fleetKey: _key,
    [SERIALIZED_PROVIDER_FIELD]: _provider,
    ...rest
  } = news;
  const knobs = Object.fromEntries(Object.entries(rest).filter(([k]) => KNOB_KEYS.includes(k)));
  const unknown = Object.keys(rest).filter((k) => !KNOB_KEYS.includes(k));
  // The kind's check names its inputs beside each (defineKind's namingKnownInputs), as for every kind.
  const failures: CheckFailure[] = unknown.map((property) => ({ property, reason: UNKNOWN_FIELD }));
  failures.push(
    ...checkWire(
      FleetSpec.omit({ template: true }),
      { datacenters, rollout },
      { datacenters, rollout },
      [["datacenters"]],
      "camelCase",
    ),
  );
  if (typeof template !== "object" || template === null || Array.isArray(template)) {
    if (template !== UNKNOWN) failures.push({ property: "template", reason: "must be an object" });
  } else {
    // The Server's own check of the same spec, so a fleet refuses exactly what a Server refuses.
    const server = checkServerInputs({
      gameId,
      environmentId,
      ...(template as Record<string, unknown>),
      datacenter: SOME_DATACENTER,
      ...knobs,
    });
    for (const f of server) {
      const top = f.property.split(".")[0] ?? "";
      const own = ["gameId", "environmentId", ...KNOB_KEYS].includes(top);
      // A template's own fields are a Server's but `datacenter`: an unknown key is told those.
      const unknownInTemplate = !own && !f.property.includes(".") && f.reason.startsWith(UNKNOWN_FIELD);
      failures.push({
        property: own ? f.property : `template.${f.property}`,
        reason: unknownInTemplate ? unknownFieldReason(TEMPLATE_FIELDS) : f.reason,
      });
    }
    if ("datacenter" in template) {
      failures.push({
        property: "template.datacenter",
        reason: `${UNKNOWN_FIELD}: a fleet's datacenters are the keys of \`datacenters\``,
      });
    }
  }
  return dedupe(failures);
}

function dedupe(failures: CheckFailure[]): CheckFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => {
    const key = `${f.property}\0${f.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Check: validated inputs and the fleet's key (kept across updates, new for a new fleet or a replacement). */
export function checkFleet(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  ctx: CheckContext,
): { inputs: FleetInputs; failures: CheckFailure[] } {
  const failures = checkFleetInputs(news);
  const inputs = { ...news } as Record<string, unknown>;
  inputs.fleetKey = isIdempotencyKey(olds.fleetKey) ? olds.fleetKey : newIdempotencyKey(ctx);
  return { inputs: inputs as FleetInputs, failures };
}

/**
 * The idempotency key of the server in `slot` of `datacenter`: a UUID derived from the fleet's own random
 * key, so the same slot always gets the same key (a create retried after an interruption finds what the
 * first attempt made) and no two slots, fleets or datacenters share one.
 */
export function serverKey(fleetKey: string, datacenter: string, slot: number): string {
  const bytes = createHash("sha256").update(`${fleetKey}\0${datacenter}\0${slot}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The Server inputs of one server of the fleet: the template in a datacenter, with the fleet's tags. */
export function memberInputs(fleet: FleetInputs, datacenter: string, slot: number): ServerInputs {
  const { template } = fleet;
  return {
    ...template,
    gameId: fleet.gameId,
    environmentId: fleet.environmentId,
    datacenter,
    tags: { ...template.tags, [FLEET_TAG]: fleet.fleetKey, [FLEET_SLOT_TAG]: String(slot) },
    ...(fleet.waitForReady !== undefined ? { waitForReady: fleet.waitForReady } : {}),
    ...(fleet.readyTimeoutSeconds !== undefined ? { readyTimeoutSeconds: fleet.readyTimeoutSeconds } : {}),
    ...(fleet.destroyKillTimeout !== undefined ? { destroyKillTimeout: fleet.destroyKillTimeout } : {}),
    idempotencyKey: serverKey(fleet.fleetKey, datacenter, slot),
  } as ServerInputs;
}

/** Tags without the ones the package reserves. */
export function userTags(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).filter(([k]) => !RESERVED_TAGS.includes(k)));
}

/** Whether a string is a datacenter UUID (else it is a slug to look up). */
export function isUuid(value: string): boolean {
  return Uuid.safeParse(value).success;
}
