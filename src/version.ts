/** npm name of this package. */
export const PACKAGE_NAME = "pulumi-gamehost";

/** This package's own package.json (one level above `dist/`). */
const manifest = require("../package.json") as { version: string; homepage: string };

/** Version of this package. */
export const PACKAGE_VERSION: string = manifest.version;

/** The repository's web address (package.json `homepage` without its `#readme`): where the docs are online. */
export const REPOSITORY_URL: string = manifest.homepage.replace(/#.*$/, "");

/**
 * Where the Pulumi CLI downloads the provider plugin when a program needs it and it is not installed: the GitHub
 * releases of the repository (`github://<api host>/<owner>` names the repository `<owner>/pulumi-gamehost`, whose
 * release archives scripts/release.sh names as the CLI looks for them). Carried by the schema (so the generated
 * Python and Go SDKs carry it) and by every registration and invoke of the TypeScript plugin face.
 */
export const PLUGIN_DOWNLOAD_URL: string = `github://api.github.com/${new URL(REPOSITORY_URL).pathname.split("/")[1]}`;
