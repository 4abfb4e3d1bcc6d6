/**
 * The emulator's dashboard in a real browser (Debian's Chromium through playwright-core): signing in, the
 * attacks it must refuse, and the quickstart deployed by the real `pulumi` CLI while the page watches —
 * servers appearing without a reload, a 429 injected from the page failing the next `pulumi up`, a server
 * killed from the page and seen gone by `pulumi refresh`. It writes the screenshots docs/emulator.md shows
 * (docs/images/dashboard-*.png) under `npm run docs:images`; otherwise into a temporary folder.
 */
import * as fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { connection, SCENARIO_TIMEOUT_MS } from "../cli/helpers";
import { fixtureIds, TYPES } from "../engine/helpers";
import { browserTitle, hasChromium, launchBrowser, type TestBrowser } from "../support/browser";
import { REPO_ROOT } from "../support/dist";
import { liveServers, startTestEmulator } from "../support/emulator";
import { quickstartOnFace } from "../support/examples";
import { CliProject, realCli, realCliTitle, tempRoot } from "../support/realPulumi";

/**
 * Where the screenshots go: docs/images (the pictures docs/emulator.md shows) when `npm run docs:images` asks
 * for them, else a temporary folder, so that a test run leaves the clone as it found it.
 */
const KEEP_IMAGES = process.env.GAMEHOST_DOC_IMAGES === "1";
const IMAGES = KEEP_IMAGES
  ? path.join(REPO_ROOT, "docs", "images")
  : fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-dashboard-images-"));
/** A made-up site that resolves to this machine, as an attacker's domain would after DNS rebinding. */
const EVIL_HOST = "evil.test";

let emulator: RunningEmulator;
let browser: TestBrowser;

beforeAll(async () => {
  if (!hasChromium) return;
  emulator = await startTestEmulator({ dashboard: true });
  browser = await launchBrowser({ hostRules: [`MAP ${EVIL_HOST} 127.0.0.1`] });
});
afterAll(async () => {
  await browser?.close();
  await emulator?.stop();
  if (!KEEP_IMAGES) fs.rmSync(IMAGES, { recursive: true, force: true });
});

async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(IMAGES, { recursive: true });
  await page.evaluate("window.scrollTo(0, 0)");
  await page.screenshot({ path: path.join(IMAGES, `dashboard-${name}.png`) });
}

/** Opens the dashboard and signs in with the keyboard, as a person would. */
async function signedIn(page: Page, token = emulator.adminToken ?? ""): Promise<void> {
  await page.goto(`${emulator.url}/`);
  await page.locator("#token").focus();
  await page.keyboard.type(token);
  await page.keyboard.press("Enter");
}

describe.skipIf(!hasChromium)(browserTitle("the dashboard in Chromium"), () => {
  it("signs in with the admin token only, keeps it in the tab's session, and signs out", async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${emulator.url}/`);
      expect(page.url()).toBe(`${emulator.url}/__dashboard/`);
      await signedIn(page, "emu_admin_not-the-token");
      await expect.poll(() => page.locator("#login-error").textContent()).toContain("refused");
      expect(await page.locator("#app").isHidden()).toBe(true);
      expect(await page.evaluate("sessionStorage.length")).toBe(0);
      await screenshot(page, "login");

      await signedIn(page);
      await page.locator("#app").waitFor({ state: "visible" });
      await expect.poll(() => page.locator("#connection").textContent()).toBe("Live");
      // Expressions, not functions: they run in the page, whose globals this file's types do not know.
      const stored = await page.evaluate(
        "({ session: Object.values(sessionStorage), local: localStorage.length, cookies: document.cookie })",
      );
      expect(stored).toEqual({ session: [emulator.adminToken], local: 0, cookies: "" });
      // A reload keeps the session (same tab); the token is never in a URL.
      await page.reload();
      await page.locator("#app").waitFor({ state: "visible" });
      expect(page.url()).not.toContain(emulator.adminToken);
      await page.locator("#sign-out").click();
      expect(await page.evaluate("sessionStorage.length")).toBe(0);
      await page.locator("#login").waitFor({ state: "visible" });
    } finally {
      await page.close();
    }
  });

  it("refuses a cross-site form post, a request without the token and a DNS-rebinding Host", async () => {
    // Another site, on a name that resolves to 127.0.0.1, whose page posts a form to the admin API.
    const fault = JSON.stringify({ kind: "error_500", count: 1000 });
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><form id="f" method="POST" enctype="text/plain"
        action="${emulator.url}/__admin/faults"><input name='${fault.slice(0, -1)},"x":"' value='"}'></form>
        <script>document.getElementById("f").submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    const evilPort = (evil.address() as AddressInfo).port;
    const page = await browser.context.newPage();
    try {
      const posted = page.waitForResponse((r) => r.url().endsWith("/__admin/faults"));
      await page.goto(`http://${EVIL_HOST}:${evilPort}/`);
      expect((await posted).status()).toBe(403);
      expect(emulator.faults.pending()).toEqual([]);

      // DNS rebinding: the attacker's name now points at the emulator. Its pages and API are refused,
      // even to a request that somehow carries the right token.
      const rebound = await page.goto(`http://${EVIL_HOST}:${emulator.port}/__dashboard/`);
      expect(rebound?.status()).toBe(403);
      const withToken = await page.evaluate(
        (token) =>
          fetch("/__admin/faults", { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status),
        emulator.adminToken,
      );
      expect(withToken).toBe(403);

      // The dashboard's own origin without the token.
      await page.goto(`${emulator.url}/__dashboard/`);
      const statuses = await page.evaluate(async () => {
        const events = await fetch("/__admin/events");
        const post = await fetch("/__admin/faults", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ kind: "error_500" }),
        });
        return [events.status, post.status];
      });
      expect(statuses).toEqual([401, 401]);
      expect(emulator.faults.pending()).toEqual([]);
    } finally {
      await page.close();
      const closed = new Promise((resolve) => evil.close(resolve));
      // The browser keeps its connection to the other site open: drop it.
      evil.closeAllConnections();
      await closed;
    }
  });

  describe.skipIf(!realCli)(realCliTitle("with the quickstart deployed by pulumi"), () => {
    let root: string | undefined;
    afterAll(() => {
      if (root) fs.rmSync(root, { recursive: true, force: true });
    });

    it("shows the servers live, injects a 429 the next up reports, kills a server refresh sees gone", {
      timeout: SCENARIO_TIMEOUT_MS,
    }, async () => {
      root = tempRoot("dashboard");
      const ids = fixtureIds(emulator);
      const types = [TYPES.dynamic.server, TYPES.dynamic.export];
      const project = new CliProject(quickstartOnFace(root, "dynamic"), root);
      await project.configure({
        ...connection(emulator),
        "gamehost-quickstart:game": { value: ids.gameNameId },
        "gamehost-quickstart:buildTags": { value: { channel: "stable" } },
      });
      const page = await browser.context.newPage();
      page.on("dialog", (dialog) => void dialog.accept());
      try {
        await signedIn(page);
        await page.locator("#app").waitFor({ state: "visible" });
        await page.locator('.tabs a[href="#/servers"]').focus();
        await page.keyboard.press("Enter");
        await expect.poll(() => page.locator("#servers-summary").textContent()).toBe("0 of 0 servers.");

        // Deployed while the page is open: both servers appear, with their endpoints, without a reload.
        await project.ok(["up", "--yes", "--skip-preview"]);
        const outputs = await project.outputsJson();
        const rows = page.locator("#servers-table tbody tr");
        await expect.poll(() => rows.count()).toBe(2);
        for (const [role, endpoint] of [
          ["lobby", outputs.lobbyEndpoint],
          ["match", outputs.matchEndpoint],
        ]) {
          const row = rows.filter({ hasText: `role=${role}` });
          await expect.poll(() => row.textContent()).toContain(String(endpoint));
          expect(await row.textContent()).toContain("running");
        }
        await screenshot(page, "servers");
        await page.locator('.tabs a[href="#/overview"]').click();
        await expect.poll(() => page.locator("#overview-counts").textContent()).toContain("2Live servers");
        await screenshot(page, "overview");
        await page.locator('.tabs a[href="#/requests"]').click();
        await page.locator("#requests-q").fill("servers");
        const requestRows = page.locator("#requests-table tbody tr");
        // The filter applies on the page's next render: wait until the rows are the filtered ones, not merely
        // two or more (the unfiltered table already has them, so a count alone raced the filter).
        await expect
          .poll(async () => {
            const texts = await requestRows.allTextContents();
            return texts.length >= 2 && texts.every((text) => text.includes("/servers"));
          })
          .toBe(true);
        for (const text of await requestRows.allTextContents()) {
          expect(text).toContain("/servers");
          expect(text).toMatch(/user /);
        }
        expect(await page.locator("#requests-table").textContent()).not.toContain(emulator.tokens.user);
        await page.locator("#requests-q").fill("");
        await expect.poll(() => page.locator("#requests-summary").textContent()).toMatch(/^(\d+) of \1 /);
        await screenshot(page, "requests");

        // The quickstart's lobby-history export, listed without its URL (a credential).
        await page.locator('.tabs a[href="#/lobbies"]').click();
        const exportRows = page.locator("#exports-table tbody tr");
        await expect.poll(() => exportRows.count()).toBe(1);
        expect(await exportRows.textContent()).toContain(String(outputs.historyRows));
        const pageText = (await page.locator("main").textContent()) ?? "";
        expect(pageText).not.toContain("signature=");
        expect(pageText).not.toContain(String(outputs.historyUrl));
        await screenshot(page, "lobbies");

        // A 429 from the page on server creates, more than the provider's retries; then an up that must
        // create (another datacenter replaces both servers) reports the rate limit.
        await page.locator('.tabs a[href="#/chaos"]').click();
        await page.locator("#fault-kind").selectOption("rate_limit");
        await page.locator("#fault-method").selectOption("POST");
        await page.locator("#fault-glob").fill("/games/**/servers");
        await page.locator("#fault-count").fill("100");
        await page.locator("#fault-retry-ms").fill("0");
        await page.locator("#fault-retry-style").selectOption("seconds");
        await page.locator("#fault-form button[type=submit]").click();
        await expect.poll(() => page.locator("#faults-table").textContent()).toContain("429");
        expect(emulator.faults.pending()).toEqual([
          expect.objectContaining({
            kind: "rate_limit",
            method: "POST",
            pathGlob: "/games/**/servers",
            remaining: 100,
            retryAfter: "seconds",
          }),
        ]);
        await screenshot(page, "chaos");
        await project.setConfig({ "gamehost-quickstart:datacenter": { value: "us-east-atl" } });
        const limited = await project.fails(["up", "--yes", "--skip-preview"]);
        expect(limited).toContain("Rate limited");
        await page.locator('.tabs a[href="#/requests"]').click();
        await page.locator("#requests-status").selectOption("4");
        await expect.poll(() => requestRows.first().textContent()).toContain("429");
        await page.locator("#requests-status").selectOption("");
        await page.locator('.tabs a[href="#/chaos"]').click();
        await page.locator("#faults-clear").click();
        await expect.poll(() => page.locator("#faults-table").textContent()).toContain("No fault pending.");
        expect(emulator.faults.pending()).toEqual([]);

        // Killed from its page, as a crash: refresh finds it gone and drops it from the state.
        await page.locator('.tabs a[href="#/servers"]').click();
        await rows.filter({ hasText: "role=lobby" }).locator("a").click();
        await page.locator("#kill").click();
        await expect.poll(() => page.locator("#server-title").textContent()).toContain("crashed");
        await expect.poll(() => page.locator("ol.timeline").textContent()).toContain("Killed");
        await screenshot(page, "server");
        const lobby = emulator.servers().find((s) => s.id === outputs.lobbyServerId);
        expect(lobby?.destroyed_at).toBeDefined();
        expect(liveServers(emulator).map((s) => s.id)).toEqual([outputs.matchServerId]);
        await project.ok(["refresh", "--yes", "--skip-preview"]);
        const afterRefresh = await project.stateIds(types);
        expect(afterRefresh.lobby).toBeUndefined();
        expect(afterRefresh.match).toBe(outputs.matchServerId);

        // Readable on a phone: the servers table becomes cards, every value labelled.
        await page.setViewportSize({ width: 390, height: 844 });
        await page.locator('.tabs a[href="#/servers"]').click();
        await page.locator("#servers-destroyed").check();
        await expect.poll(() => rows.count()).toBe(2);
        const overflow = await page.evaluate("document.documentElement.scrollWidth > window.innerWidth");
        expect(overflow).toBe(false);
        await screenshot(page, "phone");
      } finally {
        await page.close();
      }
    });
  });
});
