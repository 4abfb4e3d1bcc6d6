import { describe, expect, it } from "vitest";
import { toCamelKeys, toSnakeKeys } from "../../src/api/case";
import { CreateServerRequest } from "../../src/api/schemas";
import { checkWire } from "../../src/kinds/checks";
import { SERVER_MAP_PATHS } from "../../src/kinds/server/spec";

describe("key case conversion", () => {
  it("renames nested keys but keeps map keys as written", () => {
    const camel = {
      tags: { team_name: "core", "a-b": "c" },
      runtime: { build: "b", environment: { LOG_LEVEL: "info" } },
      network: { ports: { web_ui: { internalPort: 80, routing: { gameGuard: {} } } } },
      lifecycle: { killTimeout: 5 },
    };
    const snake = toSnakeKeys(camel, SERVER_MAP_PATHS);
    expect(snake).toEqual({
      tags: { team_name: "core", "a-b": "c" },
      runtime: { build: "b", environment: { LOG_LEVEL: "info" } },
      network: { ports: { web_ui: { internal_port: 80, routing: { game_guard: {} } } } },
      lifecycle: { kill_timeout: 5 },
    });
    expect(toCamelKeys(snake, SERVER_MAP_PATHS)).toEqual(camel);
  });

  it("names wire issues by camelCase property without touching user keys", () => {
    const wire = {
      datacenter: "00000000-0000-4000-8000-000000000001",
      tags: { team_name: 5 },
      runtime: { build: "00000000-0000-4000-8000-000000000002", environment: { LOG_LEVEL: 5 } },
      network: { ports: { web: { protocol: "http", internal_port: 0 } } },
      resources: { cpu: 1, memory: 1 },
      lifecycle: { kill_timeout: -1 },
    };
    const properties = checkWire(CreateServerRequest, wire, {}, SERVER_MAP_PATHS).map((f) => f.property);
    expect(properties.sort()).toEqual([
      "lifecycle.killTimeout",
      "network.ports.web.internalPort",
      "runtime.environment.LOG_LEVEL",
      "tags.team_name",
    ]);
  });

  it("camelizes arrays of objects", () => {
    expect(toCamelKeys({ games: [{ game_id: "x", total_player_count: 1 }] })).toEqual({
      games: [{ gameId: "x", totalPlayerCount: 1 }],
    });
  });
});
