import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The page's files, beside this module: `src/emulator/dashboard/static`, which `npm run build` copies to
 * the same place under `dist/` (plain files, no bundler). Read once at start.
 */
export const STATIC_DIR = path.join(__dirname, "static");

/** A file the dashboard serves. */
export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/** URL path → file name and type: a fixed list, so no request path ever reaches the file system. */
const FILES: Readonly<Record<string, [string, string]>> = {
  "/__dashboard/": ["index.html", "text/html; charset=utf-8"],
  "/__dashboard/app.mjs": ["app.mjs", "text/javascript; charset=utf-8"],
  "/__dashboard/style.css": ["style.css", "text/css; charset=utf-8"],
  "/__dashboard/icon.svg": ["icon.svg", "image/svg+xml"],
};

/** Loads every file of {@link FILES}; a missing one fails the start, naming it. */
export function loadStaticFiles(dir = STATIC_DIR): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const [urlPath, [name, contentType]] of Object.entries(FILES)) {
    const file = path.join(dir, name);
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch (err) {
      throw new Error(`The dashboard's file ${file} cannot be read: ${(err as Error).message}`);
    }
    files.set(urlPath, { body, contentType });
  }
  return files;
}
