import { describe, expect, it } from "vitest";
import { bySameReason } from "../../src/kinds/fleet/failures";

const refused = (until: string, ray: string) =>
  `The service refuses the create of a server until ${until}, longer than the longest wait of 60s: run it again after that time. [POST /servers: 429, ray ${ray}]`;

describe("a fleet's failures, one line per reason", () => {
  it("one reason for the servers a window refused, with the first server's request", () => {
    const at = "2026-11-27T10:00:00.000Z";
    expect(
      bySameReason([
        ["2", refused(at, "a")],
        ["3", refused(at, "b")],
      ]),
    ).toEqual([`2, 3: ${refused(at, "a")}`]);
  });

  it("refusals of one window answered a second apart are one reason, naming the latest instant", () => {
    const first = "2026-11-27T10:00:00.000Z";
    const last = "2026-11-27T10:00:01.000Z";
    expect(
      bySameReason([
        ["2", refused(first, "a")],
        ["3", refused(last, "b")],
        ["4", refused(first, "c")],
      ]),
    ).toEqual([`2, 3, 4: ${refused(last, "a")}`]);
  });

  it("different causes stay apart", () => {
    const at = "2026-11-27T10:00:00.000Z";
    expect(
      bySameReason([
        ["2", refused(at, "a")],
        ["3", "The build b-1 is not in environment prod. [POST /servers: 400, ray d]"],
      ]),
    ).toEqual([
      `2: ${refused(at, "a")}`,
      "3: The build b-1 is not in environment prod. [POST /servers: 400, ray d]",
    ]);
  });

  it("a window that refused many servers names a few of them and counts the rest, in one readable line", () => {
    // A destroy of a 100-server fleet past the DELETE limit: 52 refusals, each labelled by a server id.
    const at = "2026-11-27T16:45:00.000Z";
    const ids = Array.from(
      { length: 52 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    );
    const [line] = bySameReason(ids.map((id, i) => [id, refused(at, String(i))]));
    expect(line).toBe(`${ids.slice(0, 5).join(", ")} and 47 more: ${refused(at, "0")}`);
  });
});
