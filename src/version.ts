/** npm name of this package. */
export const PACKAGE_NAME = "pulumi-gamehost";

/** Version of this package, read from its own package.json (one level above `dist/`). */
export const PACKAGE_VERSION: string = (require("../package.json") as { version: string }).version;
