/**
 * A person who opens the dashboard (or calls an admin route) of an emulator started without `--dashboard`
 * (or `--admin`) is told how to turn it on, not only that the route does not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { start } from "./helpers";

let plain: RunningEmulator;
let adminOnly: RunningEmulator;
beforeAll(async () => {
  plain = await start();
  adminOnly = await start({ admin: true });
});
afterAll(async () => {
  await plain.stop();
  await adminOnly.stop();
});

async function answer(emu: RunningEmulator, path: string) {
  const res = await fetch(`${emu.url}${path}`, { headers: { accept: "text/html" } });
  return { status: res.status, body: (await res.json()) as { code: string; message: string } };
}

describe("the dashboard and admin routes when they are off", () => {
  it("names the flag that serves the dashboard", async () => {
    for (const emu of [plain, adminOnly])
      for (const path of ["/__dashboard/", "/__dashboard", "/__dashboard/app.mjs"]) {
        const { status, body } = await answer(emu, path);
        expect(status).toBe(404);
        expect(body.code).toBe("API_NOT_FOUND");
        expect(body.message).toContain("--dashboard");
      }
  });

  it("names the flags that serve the admin routes", async () => {
    const { status, body } = await answer(plain, "/__admin/faults");
    expect(status).toBe(404);
    expect(body.code).toBe("API_NOT_FOUND");
    expect(body.message).toContain("--admin");
  });

  it("leaves other unknown routes as the service answers them", async () => {
    const { body } = await answer(plain, "/__dashboards");
    expect(body.message).toBe("The requested route was not found.");
  });
});
