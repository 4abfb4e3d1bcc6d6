/**
 * The fenced blocks of README.md and docs/, as written, for the tests that run them (docs/testing.md, "How
 * the docs are tested"). A block's info string is its language and then attributes: `no-run` (shown, not
 * run), `check` (type-checked, not run), `file=<name>` (a file of the section's project, written as is).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "./dist";

export interface DocBlock {
  /** Repo-relative path of the page, e.g. `docs/languages.md`. */
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The heading the block is under (without the #s), or "" before the first heading. */
  readonly section: string;
  readonly lang: string;
  readonly noRun: boolean;
  /** `check`: type-checked by the suite, not run (the generated reference's Usage blocks). */
  readonly check: boolean;
  /** `file=<name>`: the block is that file of the section's project. */
  readonly file?: string;
  readonly text: string;
}

/** README.md and every page under docs/, recursively. */
export function docPages(): string[] {
  const under = (dir: string): string[] =>
    fs
      .readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory()
          ? under(path.join(dir, e.name))
          : e.name.endsWith(".md")
            ? [path.join(dir, e.name)]
            : [],
      );
  return ["README.md", ...under("docs").sort()];
}

/** The fenced blocks of one page, in order. */
export function blocksOf(page: string): DocBlock[] {
  const lines = fs.readFileSync(path.join(REPO_ROOT, page), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  let section = "";
  // A fence may be indented, inside a list item: its body is indented as far, and read without it.
  let open: { line: number; info: string; indent: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = /^(\s*)```(.*)$/.exec(text);
    if (open) {
      if (fence && fence[2] === "") {
        const [lang = "", ...attributes] = open.info.trim().split(/\s+/);
        const file = attributes.find((a) => a.startsWith("file="))?.slice("file=".length);
        blocks.push({
          page,
          line: open.line,
          section,
          lang,
          noRun: attributes.includes("no-run"),
          check: attributes.includes("check"),
          ...(file ? { file } : {}),
          text: `${open.body.join("\n")}\n`,
        });
        open = undefined;
      } else {
        open.body.push(text.startsWith(open.indent) ? text.slice(open.indent.length) : text.trimStart());
      }
      return;
    }
    const heading = /^#{1,6} (.*)$/.exec(text);
    if (heading) section = heading[1] ?? "";
    if (fence) open = { line: index + 1, info: fence[2] ?? "", indent: fence[1] ?? "", body: [] };
  });
  if (open) throw new Error(`${page}:${open.line}: a fenced block is not closed`);
  return blocks;
}

/** The blocks under the heading `section` of `page` (exactly that heading), in order. */
export function sectionBlocks(page: string, section: string): DocBlock[] {
  const found = blocksOf(page).filter((b) => b.section === section);
  if (found.length === 0) throw new Error(`${page} has no fenced block under the heading "${section}"`);
  return found;
}

/** The one block of `lang` (not `no-run`) under `section` of `page`. */
export function docBlock(page: string, section: string, lang: string): DocBlock {
  const found = sectionBlocks(page, section).filter((b) => b.lang === lang && !b.noRun);
  if (found.length !== 1)
    throw new Error(`${page} has ${found.length} runnable \`\`\`${lang} blocks under "${section}", not one`);
  return found[0] as DocBlock;
}

/** A block's id as the coverage test and the tests that run it name it: `<page>#<section>:<lang>[:<file>]`. */
export function blockId(block: Pick<DocBlock, "page" | "section" | "lang" | "file">): string {
  return `${block.page}#${block.section}:${block.lang}${block.file ? `:${block.file}` : ""}`;
}

/**
 * The commands of a shell block, one per line, with comments and blank lines dropped and the given
 * substitutions made (each must occur: a test fails when the docs no longer say what it replaces).
 */
export function shellCommands(block: DocBlock, substitutions: ReadonlyArray<readonly [string, string]> = []) {
  let text = block.text;
  for (const [from, to] of substitutions) {
    if (!text.includes(from)) throw new Error(`${blockId(block)} no longer contains "${from}"`);
    text = text.replaceAll(from, to);
  }
  return text
    .split("\n")
    .map((l) => l.replace(/(^|\s)#.*$/, "").trim())
    .filter((l) => l !== "");
}
