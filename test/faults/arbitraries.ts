/**
 * fast-check arbitraries for bad-input tests: valid create-server bodies (wire form), single-field
 * mutations that make them invalid (with the path that must be named), and the provider's camelCase
 * view of both. The rules are written out here from docs/service-contract.md, not taken from the schemas
 * under test, so a schema that drifts from the facts fails these tests.
 */
import fc from "fast-check";

const PORT_NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const PROTOCOLS = ["http", "https", "tcp", "tcp_tls", "udp"] as const;
const HOST_PROTOCOLS = ["tcp", "udp"];
export const KILL_TIMEOUT_LIMIT = 7_200_000;
const INT32_MAX = 2_147_483_647;

export const RULE_ROUTING = "SERVERS_MUST_SPECIFY_ROUTING_TYPE";
export const RULE_HOST_PROTOCOL = "SERVERS_UNSUPPORTED_HOST_PROTOCOL";

type Json = Record<string, unknown>;

/** A lowercase hyphenated UUID (fast-check's uuids are lowercase). */
export const uuid = fc.uuid();

const HEX_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** docs/service-contract.md §1: the forms the service's UUID parser reads, any case. */
const UUID_FORMS_RE = new RegExp(
  `^(?:${HEX_UUID}|[0-9a-f]{32}|\\{${HEX_UUID}\\}|urn:uuid:${HEX_UUID})$`,
  "i",
);

/** Whether the service reads `text` as a UUID. */
export const parsesAsUuid = (text: string): boolean => UUID_FORMS_RE.test(text);

/** A UUID in another form the service reads: uppercase, unhyphenated, braced, as a URN. */
export const uuidOtherForm = fc.oneof(
  uuid.map((u) => u.toUpperCase()),
  uuid.map((u) => u.replace(/-/g, "")),
  uuid.map((u) => `{${u}}`),
  uuid.map((u) => `urn:uuid:${u}`),
);

/** Anything a UUID field must refuse: free text, padded, cut short, one digit too many, bad digits. */
export const badUuid = fc
  .oneof(
    fc.string({ maxLength: 40 }),
    uuid.map((u) => ` ${u}`),
    uuid.map((u) => u.slice(0, 35)),
    uuid.map((u) => `${u}0`),
    uuid.map((u) => u.replace(/[0-9a-f]$/, "g")),
    uuid.map((u) => `{${u.replace(/-/g, "")}}`),
  )
  .filter((s) => !parsesAsUuid(s));

/**
 * A key a user may put in a map (tags, environment variables): any text, dots and underscores
 * included. `__proto__` is left out: Pulumi's own deserialization drops it before a provider runs.
 */
export const userKey = fc.string({ maxLength: 12 }).filter((k) => k !== "__proto__");

/** A valid port name (DNS label). */
export const portName = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);

/** A port name the service refuses. */
export const badPortName = fc
  .oneof(fc.string({ maxLength: 12 }), fc.constantFrom("Game", "game_port", "-x", "x-", "a".repeat(64), ""))
  .filter((s) => !PORT_NAME_RE.test(s) && s !== "__proto__");

const smallJson = fc.jsonValue({ maxDepth: 2 });

/** A value that is not of `kind` (a plain object counts as an object, an array does not). */
export function notA(kind: "string" | "number" | "object" | "boolean"): fc.Arbitrary<unknown> {
  return fc
    .oneof(
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 8 }),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2, noNullPrototype: true }),
    )
    .filter((v) => {
      if (kind === "object") return typeof v !== "object" || v === null || Array.isArray(v);
      return typeof v !== kind;
    });
}

/** A number that is not a positive 32-bit integer (cpu, memory). */
const notPositiveInt = fc.oneof(
  fc.integer({ max: 0 }),
  fc.integer({ min: 1, max: INT32_MAX }).map((n) => INT32_MAX + n),
  fc.double({ min: -1e9, max: 1e9, noNaN: true }).filter((n) => !Number.isInteger(n)),
);

/** A number outside [0, 7 200 000) or not an integer. */
export const badKillTimeout = fc.oneof(
  fc.integer({ max: -1 }),
  fc.integer({ min: KILL_TIMEOUT_LIMIT }),
  fc.double({ min: 0, max: KILL_TIMEOUT_LIMIT, noNaN: true }).filter((n) => !Number.isInteger(n)),
);

/**
 * A valid port. `startable`: also one the service can start — docs/service-contract.md §4: a game-guard port
 * (explicit, or routing omitted) without `internal_port` is accepted but the server never starts.
 */
const portOf = (startable: boolean) =>
  fc.constantFrom(...PROTOCOLS).chain((protocol) =>
    fc
      .record(
        {
          protocol: fc.constant(protocol),
          internal_port: fc.integer({ min: 1, max: 65_535 }),
          routing: HOST_PROTOCOLS.includes(protocol)
            ? fc.constantFrom({ game_guard: {} }, { host: {} })
            : fc.constant({ game_guard: {} }),
        },
        { requiredKeys: ["protocol"] },
      )
      .filter(
        (p) =>
          !startable || p.internal_port !== undefined || (p.routing as { host?: object })?.host !== undefined,
      ),
  );

const stringMap = (maxKeys: number) =>
  fc.dictionary(userKey, fc.string({ maxLength: 12 }), { maxKeys, noNullPrototype: true });

/** Ids a valid body must use to be accepted by a running emulator (validation alone needs none). */
export interface BodyIds {
  datacenter: fc.Arbitrary<string>;
  build: fc.Arbitrary<string>;
}

/**
 * A valid create-server body in wire form (snake_case), optional fields sometimes present.
 * `startable` (default true) keeps to bodies whose server can start (see {@link portOf}); the API
 * also accepts the others.
 */
export function validServerBody(
  ids: BodyIds = { datacenter: uuid, build: uuid },
  { startable = true }: { startable?: boolean } = {},
): fc.Arbitrary<Json> {
  const port = portOf(startable);
  return fc.record(
    {
      datacenter: ids.datacenter,
      lifecycle: fc.record(
        { kill_timeout: fc.integer({ min: 0, max: KILL_TIMEOUT_LIMIT - 1 }) },
        { requiredKeys: [] },
      ),
      network: fc.record(
        {
          mode: fc.constantFrom("bridge", "host"),
          ports: fc.dictionary(portName, port, { maxKeys: 3, noNullPrototype: true }),
        },
        { requiredKeys: ["ports"] },
      ),
      resources: fc.record({
        cpu: fc.integer({ min: 1, max: INT32_MAX }),
        memory: fc.integer({ min: 1, max: INT32_MAX }),
      }),
      runtime: fc.record(
        {
          arguments: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
          build: ids.build,
          environment: stringMap(3),
        },
        { requiredKeys: ["build"] },
      ),
      tags: stringMap(4),
    },
    { requiredKeys: ["datacenter", "network", "resources", "runtime", "tags"] },
  ) as fc.Arbitrary<Json>;
}

/** One change that makes a body invalid, and the field path an error must name. */
export interface Mutation {
  /** What kind of mistake, for failure reports. */
  kind: string;
  /** Wire path to set or delete. */
  target: string[];
  /** `undefined`: delete the field. */
  value?: unknown;
  /** Wire path the error must name. */
  expect: string[];
  /** Service code the emulator must answer with. */
  code: string;
}

const BAD_BODY = "API_BAD_BODY";

const field = (target: string[], value: fc.Arbitrary<unknown>, kind: string) =>
  value.map((v): Mutation => ({ kind, target, value: v, expect: target, code: BAD_BODY }));

/** Known keys per object level of the body (wire names), so a generated unknown key is really unknown. */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  "": ["datacenter", "lifecycle", "network", "resources", "runtime", "tags"],
  network: ["mode", "ports"],
  resources: ["cpu", "memory"],
  runtime: ["arguments", "build", "environment"],
  lifecycle: ["kill_timeout"],
  port: ["internal_port", "protocol", "routing"],
  routing: ["game_guard", "host"],
  game_guard: [],
};

/** Names the provider adds at the top level (and what it keeps internally). */
export const PROVIDER_TOP_KEYS = [
  "gameId",
  "environmentId",
  "waitForReady",
  "readyTimeoutSeconds",
  "destroyKillTimeout",
  "adoptServerId",
  "resourceScope",
  "idempotencyKey",
  "__provider",
];

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function unknownKey(level: string): fc.Arbitrary<string> {
  const known = [...(KNOWN_KEYS[level] ?? []), ...(level === "" ? PROVIDER_TOP_KEYS : [])];
  const taken = new Set([...known, ...known.map(camel), ...known.map(snake)]);
  return fc
    .oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom("gpu", "region", "replicas", "Tags"))
    .filter((k) => k !== "__proto__" && !taken.has(k) && !taken.has(snake(k)) && !taken.has(camel(k)));
}

/** Every single-field mistake the create body can hold, each naming the field at fault. */
export function serverMutation(): fc.Arbitrary<Mutation> {
  const wrongType = fc.oneof(
    field(["datacenter"], notA("string"), "wrong type"),
    field(["network"], notA("object"), "wrong type"),
    field(["network", "ports"], notA("object"), "wrong type"),
    field(["network", "mode"], notA("string"), "wrong type"),
    field(["resources"], notA("object"), "wrong type"),
    field(["resources", "cpu"], notA("number"), "wrong type"),
    field(["resources", "memory"], notA("number"), "wrong type"),
    field(["runtime"], notA("object"), "wrong type"),
    field(["runtime", "build"], notA("string"), "wrong type"),
    field(
      ["runtime", "arguments"],
      notA("object").filter((v) => !Array.isArray(v)),
      "wrong type",
    ),
    field(["runtime", "environment"], notA("object"), "wrong type"),
    field(["tags"], notA("object"), "wrong type"),
    field(["lifecycle"], notA("object"), "wrong type"),
    field(["lifecycle", "kill_timeout"], notA("number"), "wrong type"),
  );
  const missing = fc
    .constantFrom(
      ["datacenter"],
      ["network"],
      ["network", "ports"],
      ["resources"],
      ["resources", "cpu"],
      ["resources", "memory"],
      ["runtime"],
      ["runtime", "build"],
      ["tags"],
    )
    .map(
      (target): Mutation => ({ kind: "missing", target: [...target], expect: [...target], code: BAD_BODY }),
    );
  const badEnum = fc.oneof(
    field(
      ["network", "mode"],
      fc.string({ maxLength: 8 }).filter((s) => s !== "bridge" && s !== "host"),
      "bad enum",
    ),
    fc
      .tuple(
        portName,
        fc.string({ maxLength: 8 }).filter((s) => !(PROTOCOLS as readonly string[]).includes(s)),
      )
      .map(
        ([name, protocol]): Mutation => ({
          kind: "bad enum",
          target: ["network", "ports", name],
          value: { protocol },
          expect: ["network", "ports", name, "protocol"],
          code: BAD_BODY,
        }),
      ),
  );
  const routing = fc
    .tuple(portName, fc.constantFrom(...PROTOCOLS), fc.constantFrom({}, { game_guard: {}, host: {} }))
    .map(
      ([name, protocol, r]): Mutation => ({
        kind: "routing neither or both",
        target: ["network", "ports", name],
        value: { protocol, routing: r },
        expect: ["network", "ports", name, "routing"],
        code: RULE_ROUTING,
      }),
    );
  const hostProtocol = fc.tuple(portName, fc.constantFrom("http", "https", "tcp_tls")).map(
    ([name, protocol]): Mutation => ({
      kind: "host routing protocol",
      target: ["network", "ports", name],
      value: { protocol, routing: { host: {} } },
      expect: ["network", "ports", name, "protocol"],
      code: RULE_HOST_PROTOCOL,
    }),
  );
  const resources = fc.oneof(
    field(["resources", "cpu"], notPositiveInt, "non-positive or non-integer"),
    field(["resources", "memory"], notPositiveInt, "non-positive or non-integer"),
  );
  const killTimeout = field(["lifecycle", "kill_timeout"], badKillTimeout, "kill timeout out of range");
  const mapValue = fc.oneof(
    fc.tuple(userKey, notA("string")).map(
      ([key, v]): Mutation => ({
        kind: "non-string tag",
        target: ["tags", key],
        value: v,
        expect: ["tags", key],
        code: BAD_BODY,
      }),
    ),
    fc.tuple(userKey, notA("string")).map(
      ([key, v]): Mutation => ({
        kind: "non-string env value",
        target: ["runtime", "environment", key],
        value: v,
        expect: ["runtime", "environment", key],
        code: BAD_BODY,
      }),
    ),
    fc.tuple(fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }), notA("string")).map(
      ([ok, bad]): Mutation => ({
        kind: "non-string argument",
        target: ["runtime", "arguments"],
        value: [...ok, bad],
        expect: ["runtime", "arguments", String(ok.length)],
        code: BAD_BODY,
      }),
    ),
  );
  const ids = fc.oneof(
    field(["datacenter"], badUuid, "non-UUID id"),
    field(["runtime", "build"], badUuid, "non-UUID id"),
  );
  const unknownKeys = fc.oneof(
    ...(["", "network", "resources", "runtime", "lifecycle"] as const).map((level) =>
      fc.tuple(unknownKey(level), smallJson).map(
        ([key, v]): Mutation => ({
          kind: "unknown key",
          target: [...(level ? [level] : []), key],
          value: v,
          expect: [...(level ? [level] : []), key],
          code: BAD_BODY,
        }),
      ),
    ),
    fc.tuple(portName, unknownKey("port"), smallJson).map(
      ([name, key, v]): Mutation => ({
        kind: "unknown key",
        target: ["network", "ports", name],
        value: { protocol: "udp", [key]: v },
        expect: ["network", "ports", name, key],
        code: BAD_BODY,
      }),
    ),
    fc.tuple(portName, unknownKey("routing"), unknownKey("game_guard")).map(
      ([name, key, inner]): Mutation => ({
        kind: "unknown key",
        target: ["network", "ports", name],
        value: { protocol: "udp", routing: { game_guard: { [inner]: 1 }, [key]: {} } },
        expect: ["network", "ports", name, "routing", key],
        code: BAD_BODY,
      }),
    ),
  );
  const internalPort = fc
    .tuple(
      portName,
      fc
        .oneof(fc.integer({ max: 0 }), fc.integer({ min: 65_536 }), fc.double({ noNaN: true }))
        .filter((n) => !(Number.isInteger(n) && n >= 1 && n <= 65_535)),
    )
    .map(
      ([name, n]): Mutation => ({
        kind: "internal port out of range",
        target: ["network", "ports", name],
        value: { protocol: "udp", internal_port: n },
        expect: ["network", "ports", name, "internal_port"],
        code: BAD_BODY,
      }),
    );
  const portNames = badPortName.map(
    (name): Mutation => ({
      kind: "bad port name",
      target: ["network", "ports", name],
      value: { protocol: "udp" },
      expect: ["network", "ports", name],
      code: BAD_BODY,
    }),
  );
  return fc.oneof(
    wrongType,
    missing,
    badEnum,
    routing,
    hostProtocol,
    resources,
    killTimeout,
    mapValue,
    ids,
    unknownKeys,
    internalPort,
    portNames,
  );
}

/** A deep copy of `body` with `mutation` applied (intermediate objects created as needed). */
export function applyMutation(body: Json, mutation: Mutation): Json {
  const copy = structuredClone(body);
  let node: Json = copy;
  const parents = mutation.target.slice(0, -1);
  for (const key of parents) {
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Json;
  }
  const last = mutation.target[mutation.target.length - 1] as string;
  if (!("value" in mutation)) delete node[last];
  else
    Object.defineProperty(node, last, {
      value: mutation.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}

/** Wire paths whose keys are user data (kept verbatim by the camelCase conversion). */
const MAP_PATHS = [["tags"], ["runtime", "environment"], ["network", "ports"]];
const isMapPath = (path: readonly string[]) =>
  MAP_PATHS.some((p) => p.length === path.length && p.every((seg, i) => seg === path[i]));
/** The only snake_case field names of the body. */
const CAMEL_NAMES: Record<string, string> = {
  internal_port: "internalPort",
  kill_timeout: "killTimeout",
  game_guard: "gameGuard",
};

/** The provider's camelCase view of a wire path (user map keys kept). */
export function camelPathOf(path: readonly string[]): string[] {
  const out: string[] = [];
  for (const segment of path) out.push(isMapPath(out) ? segment : (CAMEL_NAMES[segment] ?? segment));
  return out;
}

/** The provider's camelCase inputs for a wire body (user map keys kept, unknown keys as they are). */
export function toProviderSpec(value: unknown, path: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => toProviderSpec(v, path));
  if (typeof value !== "object" || value === null) return value;
  const out: Json = {};
  const userKeys = isMapPath(path);
  for (const [key, inner] of Object.entries(value)) {
    const name = userKeys ? key : (CAMEL_NAMES[key] ?? key);
    Object.defineProperty(out, name, {
      value: toProviderSpec(inner, [...path, key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
