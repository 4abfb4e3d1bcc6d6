import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/dynamic/generated/host/lobbyHistoryExport";
import { UNKNOWN } from "../../src/kinds/checks";
import type { LobbyHistoryExportOutputs } from "../../src/kinds/lobbyHistoryExport/spec";
import { summarizeCsv } from "../../src/kinds/lobbyHistoryExport/summary";

const GAME = "22222222-2222-4222-8222-222222222222";

describe("LobbyHistoryExport check", () => {
  it("stores RFC 3339 and millisecond bounds as epoch ms", async () => {
    const { inputs, failures } = await check(
      {},
      { gameId: GAME, queryStart: "2024-08-16T00:00:00.000Z", queryEnd: 1_723_852_800_000 },
    );
    expect(failures).toEqual([]);
    expect(inputs.queryStart).toBe(Date.UTC(2024, 7, 16));
    expect(inputs.queryEnd).toBe(1_723_852_800_000);
  });

  it("names each bad field", async () => {
    const { failures } = await check(
      {},
      { gameId: "g", queryStart: "yesterday", queryEnd: -1, summarize: "yes", extra: 1 },
    );
    expect(failures.map((f) => f.property).sort()).toEqual([
      "extra",
      "gameId",
      "queryEnd",
      "queryStart",
      "summarize",
    ]);
  });

  it("says what a bound may be when a string is none of it: epoch ms from stack config, a date alone", async () => {
    // `pulumi config set from 1723766400000` and `config.require("from")` give a string of digits; the
    // reason must not answer "must be an RFC 3339 timestamp" alone to someone who gave epoch milliseconds.
    const { failures } = await check(
      {},
      { gameId: GAME, queryStart: "1723766400000", queryEnd: "2024-08-17" },
    );
    const reason = (property: string) => failures.find((f) => f.property === property)?.reason ?? "";
    expect(reason("queryStart")).toContain("epoch milliseconds go as a number, not a string");
    expect(reason("queryStart")).toContain("config.requireNumber");
    for (const property of ["queryStart", "queryEnd"]) {
      expect(reason(property)).toContain("e.g. 2024-08-16T00:00:00Z");
      expect(reason(property)).toContain("or integer epoch milliseconds");
    }
    expect(reason("queryEnd")).not.toContain("not a string");
  });

  it("takes RFC 3339 in any form the RFC allows: lower-case t and z, an offset, fractional seconds", async () => {
    // RFC 3339 §5.6: "T" and "Z" may be lower case. Each pair names the same instant, so neither a
    // check failure nor a diff between them.
    const same: Array<[string, number]> = [
      ["2026-11-22t00:00:00z", Date.UTC(2026, 10, 22)],
      ["2026-11-22T05:30:00+05:30", Date.UTC(2026, 10, 22)],
      ["2026-11-22t05:30:00.000+05:30", Date.UTC(2026, 10, 22)],
      ["2026-11-21T16:00:00-08:00", Date.UTC(2026, 10, 22)],
      ["2026-11-22T14:00:00+14:00", Date.UTC(2026, 10, 22)],
      ["2028-02-29T00:00:00.25Z", Date.UTC(2028, 1, 29, 0, 0, 0, 250)],
    ];
    for (const [text, epochMs] of same) {
      const { inputs, failures } = await check(
        {},
        { gameId: GAME, queryStart: text, queryEnd: 1_900_000_000_000 },
      );
      expect({ text, failures }).toEqual({ text, failures: [] });
      expect({ text, at: inputs.queryStart }).toEqual({ text, at: epochMs });
    }
  });

  it("says what is wrong with an RFC 3339 look-alike: no seconds, a day the calendar lacks", async () => {
    const reason = async (queryStart: string) =>
      (await check({}, { gameId: GAME, queryStart, queryEnd: 1_900_000_000_000 })).failures.find(
        (f) => f.property === "queryStart",
      )?.reason ?? "";
    expect(await reason("2026-11-22T00:00Z")).toContain("needs the seconds (2026-11-22T00:00:00Z)");
    expect(await reason("2026-02-29T00:00:00Z")).toContain("2026-02 has 28 days");
    expect(await reason("2026-04-31T00:00:00Z")).toContain("2026-04 has 30 days");
    // RFC 3339 allows a leap second; a Date (and epoch milliseconds) cannot hold one.
    expect(await reason("2016-12-31T23:59:60Z")).toContain("a leap second (:60) has no epoch milliseconds");
  });

  it("names a bound before 1970 as a time, not as a negative number", async () => {
    const { failures } = await check(
      {},
      { gameId: GAME, queryStart: "1969-12-31T23:59:59Z", queryEnd: "2026-01-01T00:00:00Z" },
    );
    expect(failures).toEqual([
      {
        property: "queryStart",
        reason:
          "must be 1970-01-01T00:00:00Z or later, the earliest time the service takes (given: 1969-12-31T23:59:59Z)",
      },
    ]);
  });

  it("names an invalid Date (which the program passes on as its text) as one", async () => {
    const { failures } = await check(
      {},
      { gameId: GAME, queryStart: String(new Date("16/08/2024")), queryEnd: 1 },
    );
    expect(failures).toEqual([
      {
        property: "queryStart",
        reason:
          "must be an RFC 3339 timestamp with a time and an offset (e.g. 2024-08-16T00:00:00Z) or integer epoch milliseconds: the Date given is invalid (new Date could not read the text it was made from)",
      },
    ]);
  });

  it("requires the span to start before it ends", async () => {
    const { failures } = await check({}, { gameId: GAME, queryStart: 2000, queryEnd: 1000 });
    expect(failures).toEqual([
      { property: "queryEnd", reason: "must be after queryStart (the span would hold nothing)" },
    ]);
    const same = await check({}, { gameId: GAME, queryStart: 1000, queryEnd: 1000 });
    expect(same.failures.map((f) => f.property)).toEqual(["queryEnd"]);
  });

  it("names bounds given in epoch seconds (a span of 1970 exports an empty file), not 0 or milliseconds", async () => {
    const seconds = Math.floor(Date.UTC(2024, 7, 16) / 1000);
    const { failures } = await check({}, { gameId: GAME, queryStart: seconds, queryEnd: seconds + 86_400 });
    expect(failures.map((f) => f.property)).toEqual(["queryStart", "queryEnd"]);
    expect(failures[0]?.reason).toBe(
      `is epoch milliseconds, ${new Date(seconds).toISOString()} (given: ${seconds}): for epoch seconds give milliseconds (${seconds * 1000} is 2024-08-16T00:00:00.000Z)`,
    );
    // 0 (everything since the epoch) and milliseconds pass.
    expect((await check({}, { gameId: GAME, queryStart: 0, queryEnd: seconds * 1000 })).failures).toEqual([]);
  });

  it("lets unknown bounds pass in preview", async () => {
    const { failures } = await check({}, { gameId: GAME, queryStart: UNKNOWN, queryEnd: 1000 });
    expect(failures).toEqual([]);
  });
});

describe("LobbyHistoryExport diff", () => {
  const olds: LobbyHistoryExportOutputs = {
    gameId: GAME,
    queryStart: 1,
    queryEnd: 2,
    triggers: { day: "a" },
    url: "u",
    exportedAt: "t",
    expiresAt: "t",
  };
  it("replaces on any input change, triggers included", async () => {
    expect(
      await diff("id", olds, { gameId: GAME, queryStart: 1, queryEnd: 2, triggers: { day: "b" } }),
    ).toEqual({
      changes: true,
      replaces: ["triggers"],
      deleteBeforeReplace: false,
    });
  });
  it("reports no change when inputs are equal", async () => {
    expect(
      (await diff("id", olds, { gameId: GAME, queryStart: 1, queryEnd: 2, triggers: { day: "a" } })).changes,
    ).toBe(false);
  });
});

describe("LobbyHistoryExport renewal (renewMinutesBeforeExpiry)", () => {
  const inputs = { gameId: GAME, queryStart: 1, queryEnd: 2 };
  /** The state of an export whose URL expires `minutesLeft` minutes from now (negative: expired). */
  const exported = (minutesLeft: number, renew?: number): LobbyHistoryExportOutputs => {
    const expiresAt = Date.now() + minutesLeft * 60_000;
    return {
      ...inputs,
      ...(renew === undefined ? {} : { renewMinutesBeforeExpiry: renew }),
      url: "u",
      exportedAt: new Date(expiresAt - 3_600_000).toISOString(),
      expiresAt: new Date(expiresAt).toISOString(),
    };
  };

  it("exports again once fewer minutes than asked are left, naming expiresAt as the reason", async () => {
    const news = { ...inputs, renewMinutesBeforeExpiry: 10 };
    expect(await diff("id", exported(9, 10), news)).toEqual({
      changes: true,
      replaces: ["expiresAt"],
      deleteBeforeReplace: false,
    });
    expect((await diff("id", exported(11, 10), news)).changes).toBe(false);
    expect((await diff("id", exported(-1, 0), { ...inputs, renewMinutesBeforeExpiry: 0 })).replaces).toEqual([
      "expiresAt",
    ]);
    expect((await diff("id", exported(1, 0), { ...inputs, renewMinutesBeforeExpiry: 0 })).changes).toBe(
      false,
    );
  });

  it("keeps an expired URL when not asked (the default), and an input change is named as itself", async () => {
    expect((await diff("id", exported(-600), inputs)).changes).toBe(false);
    const changed = await diff("id", exported(-1, 0), {
      ...inputs,
      queryEnd: 3,
      renewMinutesBeforeExpiry: 0,
    });
    expect(changed.replaces).toEqual(["queryEnd"]);
  });

  it("takes whole minutes from 0 to 59, and names the field otherwise", async () => {
    for (const [given, reason] of [
      [60, "must be ≤ 59"],
      [-1, "must be ≥ 0"],
      [1.5, "must be a whole number of minutes"],
      ["10", "must be a number of minutes"],
    ] as const) {
      const { failures } = await check({}, { ...inputs, renewMinutesBeforeExpiry: given });
      expect(failures).toEqual([
        { property: "renewMinutesBeforeExpiry", reason: expect.stringContaining(reason) },
      ]);
    }
  });
});

describe("CSV summary", () => {
  it("counts records (quoted newlines included), bytes and SHA-256 in one pass", async () => {
    const csv = 'a,b\n1,"two\nlines"\n3,4\n';
    const chunks = [csv.slice(0, 5), csv.slice(5, 9), csv.slice(9)].map((s) => Buffer.from(s));
    const summary = await summarizeCsv(Readable.from(chunks));
    expect(summary).toEqual({
      rowCount: 2,
      byteLength: Buffer.byteLength(csv),
      sha256: createHash("sha256").update(csv).digest("hex"),
    });
  });

  it("reports zero rows for a header-only file", async () => {
    expect((await summarizeCsv(Readable.from([Buffer.from("a,b\n")]))).rowCount).toBe(0);
  });
});

describe("CSV summary against a real CSV parser", () => {
  it("counts the same rows as csv-parse for any fields and any chunking", async () => {
    const field = fc.oneof(fc.string(), fc.constantFrom('"', '""', ",", "\n", "\r\n", 'a"b', "x\ny,z"));
    const rows = fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        rows,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        async (data, cuts, trailing) => {
          let csv = stringify([["h1", "h2"], ...data]);
          if (!trailing) csv = csv.replace(/\n$/, "");
          const bytes = Buffer.from(csv);
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...points, bytes.length]
            .slice(1)
            .map((end, i, all) => bytes.subarray(i === 0 ? 0 : all[i - 1], end));
          const summary = await summarizeCsv(Readable.from(chunks));
          const expected = (parse(bytes, { relax_column_count: true }) as unknown[]).length - 1;
          expect(summary.rowCount).toBe(expected);
          expect(summary.byteLength).toBe(bytes.length);
          expect(summary.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
        },
      ),
      { numRuns: 300 },
    );
  });
});
