/**
 * `pulumi-gamehost/native`: the resources and data sources of the gamehost provider plugin
 * (`pulumi-resource-gamehost`, tokens `gamehost:index:<Kind>`), as Pulumi's code generator would emit
 * them. Same arguments and outputs as the dynamic resources, plus `pulumi import`, `get`, previews with
 * known outputs, `customTimeouts` and explicit providers. The plugin must be installed (see the docs).
 */
export * from "../dynamic/generated/functionTypes";
export * from "./generated/functions";
export * from "./generated/resources";
