import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { onceIn } from "./sharedWork";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-shared-test-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("onceIn: work shared by the test files of a run", () => {
  it("makes the folder once for callers that ask at the same time, and gives each the same folder", async () => {
    let makes = 0;
    const make = async (dir: string) => {
      makes += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
      fs.writeFileSync(path.join(dir, "made"), "yes");
    };
    const folders = await Promise.all([1, 2, 3].map(() => onceIn(root, "thing", make)));
    expect(makes).toBe(1);
    expect(new Set(folders).size).toBe(1);
    expect(fs.readFileSync(path.join(folders[0] as string, "made"), "utf8")).toBe("yes");
    // Asked later, it is there already.
    expect(await onceIn(root, "thing", make)).toBe(folders[0]);
    expect(makes).toBe(1);
  });

  it("a failure of the maker is the failure of every caller, waiting ones included", async () => {
    const make = async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new Error("npm install node@99: no such version");
    };
    const results = await Promise.allSettled([onceIn(root, "broken", make), onceIn(root, "broken", make)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toContain("no such version");
  });

  it("a wait on a maker that never finishes ends with a message naming the work", async () => {
    fs.mkdirSync(path.join(root, "stuck.lock"));
    await expect(onceIn(root, "stuck", async () => {}, 300)).rejects.toThrow(/stuck: waited 300 ms/);
  });
});
