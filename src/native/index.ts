/**
 * `pulumi-gamehost/native`: the resources and data sources of the gamehost provider plugin
 * (`pulumi-resource-gamehost`, tokens `gamehost:index:<Kind>`), as Pulumi's code generator would emit
 * them. Same arguments and outputs as the dynamic resources, plus `pulumi import`, `get`, previews with
 * known outputs, `customTimeouts` and explicit providers. The plugin must be installed (see the docs).
 */
export * from "../dynamic/generated/functionTypes";
// The enums as values too (`NetworkMode.Host`), and the `types` namespace, as the generated SDK exports them:
// code from `pulumi import` uses them.
export * as types from "../types";
export * from "../types/generated/enums";
export type { ProviderArgs } from "../types/generated/resources";
export * from "./generated/functions";
// Every kind's class, with its argument and state types (generated: a new kind needs no line here).
export * from "./generated/resources";
