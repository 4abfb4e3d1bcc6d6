import { describe, expect, it } from "vitest";
import { camelPath, toCamelKeys, toSnakeKeys } from "../../src/api/case";
import { SERVER_MAP_PATHS } from "../../src/provider/server/spec";

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

  it("maps wire issue paths back to camelCase without touching user keys", () => {
    expect(camelPath("network.ports.web_ui.internal_port", SERVER_MAP_PATHS)).toBe(
      "network.ports.web_ui.internalPort",
    );
    expect(camelPath("runtime.environment.LOG_LEVEL", SERVER_MAP_PATHS)).toBe(
      "runtime.environment.LOG_LEVEL",
    );
    expect(camelPath("lifecycle.kill_timeout", SERVER_MAP_PATHS)).toBe("lifecycle.killTimeout");
    expect(camelPath("", SERVER_MAP_PATHS)).toBe("");
  });

  it("camelizes arrays of objects", () => {
    expect(toCamelKeys({ games: [{ game_id: "x", total_player_count: 1 }] })).toEqual({
      games: [{ gameId: "x", totalPlayerCount: 1 }],
    });
  });
});
