/** npm name of this package. */
export const PACKAGE_NAME = "pulumi-gamehost";

/** This package's own package.json (one level above `dist/`). */
const manifest = require("../package.json") as { version: string; homepage: string };

/** Version of this package. */
export const PACKAGE_VERSION: string = manifest.version;

/** The repository's web address (package.json `homepage` without its `#readme`): where the docs are online. */
export const REPOSITORY_URL: string = manifest.homepage.replace(/#.*$/, "");
