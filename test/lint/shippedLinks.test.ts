// Links in the docs the tarball ships (README.md, CHANGELOG.md, docs/) must work where a user reads them:
// in node_modules/pulumi-gamehost, where only the shipped files are. A relative link must name a shipped
// file; anything else points to the repository (package.json `homepage`) by its full URL.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  files: string[];
};
/** What npm always packs besides `files`. */
const ALWAYS_SHIPPED = ["package.json", "README.md", "LICENSE"];

function isShipped(relative: string): boolean {
  const posix = relative.split(path.sep).join("/");
  return (
    ALWAYS_SHIPPED.includes(posix) ||
    manifest.files.some((entry) => posix === entry || posix.startsWith(`${entry.replace(/\/$/, "")}/`))
  );
}

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const at = path.join(dir, name);
    if (statSync(at).isDirectory()) return markdownUnder(at);
    return name.endsWith(".md") ? [at] : [];
  });
}

/** Every shipped markdown file, repo-relative. */
const shippedDocs = [
  ...["README.md", "CHANGELOG.md"].map((f) => path.join(REPO_ROOT, f)),
  ...manifest.files
    .filter(
      (entry) =>
        existsSync(path.join(REPO_ROOT, entry)) && statSync(path.join(REPO_ROOT, entry)).isDirectory(),
    )
    .flatMap((entry) => markdownUnder(path.join(REPO_ROOT, entry))),
].map((file) => path.relative(REPO_ROOT, file));

/** The targets of a markdown file's inline links and images, code spans and fenced blocks left out. */
function linkTargets(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? "");
}

describe("links in the shipped docs", () => {
  it("the docs are found (README, CHANGELOG and docs/)", () => {
    expect(shippedDocs).toContain("README.md");
    expect(shippedDocs).toContain(path.join("docs", "client.md"));
    expect(shippedDocs.length).toBeGreaterThan(10);
  });

  it("every relative link names a shipped file; the rest are absolute URLs", () => {
    const broken: string[] = [];
    for (const doc of shippedDocs) {
      for (const target of linkTargets(readFileSync(path.join(REPO_ROOT, doc), "utf8"))) {
        if (/^(https?:|mailto:)/.test(target) || target.startsWith("#")) continue;
        const file = decodeURIComponent(target.split("#")[0] ?? "");
        const resolved = path.relative(REPO_ROOT, path.resolve(REPO_ROOT, path.dirname(doc), file));
        if (!existsSync(path.join(REPO_ROOT, resolved)) || !isShipped(resolved))
          broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
