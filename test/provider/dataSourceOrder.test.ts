/**
 * What the data sources promise about order holds whatever order the service answers in: docs/service-contract.md
 * gives no order for `GET …/builds`, and getBuilds promises the newest first (README: the newest upload is
 * `builds[0]`, the one that runs when no tag picks another).
 */
import { describe, expect, it } from "vitest";
import type { GamehostClient } from "../../src/api/client";
import type { Build } from "../../src/api/schemas";
import { getBuilds } from "../../src/kinds/functions";

const build = (n: number, createdAt: string): Build => ({
  id: `b1000000-0000-4000-8000-00000000000${n}`,
  name: `build ${n}`,
  created_at: createdAt,
  content_length: 1,
  tags: {},
});

/** A client whose `listBuilds` answers `builds` as given (the one call getBuilds makes). */
const answering = (builds: Build[]) => ({ listBuilds: async () => builds }) as unknown as GamehostClient;

describe("getBuilds", () => {
  it("lists the newest first, whatever order the service answers in (offsets and all)", async () => {
    const answer = [
      build(1, "2024-03-01T12:00:00.000Z"),
      build(3, "2024-07-01T13:30:00.000+02:00"), // 11:30Z: older than build 2
      build(2, "2024-07-01T12:00:00.000Z"),
      build(4, "2024-07-01T12:00:00.000Z"), // the same instant as build 2: kept in the service's order
    ];
    const { builds } = await getBuilds.run(answering(answer), {
      gameId: "9a000000-0000-4000-8000-000000000001",
      environmentId: "e1000000-0000-4000-8000-000000000001",
    });
    expect(builds.map((b) => b.name)).toEqual(["build 2", "build 4", "build 3", "build 1"]);
  });
});
