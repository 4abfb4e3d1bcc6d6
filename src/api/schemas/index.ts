/**
 * The zod schemas of the wire format (`pulumi-gamehost/api/schemas`): the rules requests are checked
 * with and the shapes answers must have, their constants, and the helpers that parse with a schema.
 * Importing this subpath reads zod's typings (which need `esModuleInterop` under the older Pulumi
 * template); `pulumi-gamehost/api` declares the same types without them.
 */
export { parseWith, toFieldIssues } from "../validate";
export * from "./cloud";
export * from "./common";
export * from "./lobbies";
export * from "./servers";
