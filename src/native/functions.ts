import * as pulumi from "@pulumi/pulumi";
import type {
  CreatePaymentPortalSessionArgs,
  CreatePaymentPortalSessionOutputArgs,
  CreatePaymentPortalSessionResult,
  GetBootstrapResult,
  GetBuildsArgs,
  GetBuildsOutputArgs,
  GetBuildsResult,
  GetDatacentersArgs,
  GetDatacentersOutputArgs,
  GetDatacentersResult,
  GetEnvironmentArgs,
  GetEnvironmentOutputArgs,
  GetEnvironmentResult,
  GetGameArgs,
  GetGameOutputArgs,
  GetGameResult,
  GetGamesResult,
  GetGroupBillingArgs,
  GetGroupBillingOutputArgs,
  GetGroupBillingResult,
} from "../types";

// The data sources as invokes of the provider plugin (`gamehost:index:<name>`): they run in the plugin,
// configured like its resources (the default provider, or `opts.provider`). The plain forms resolve
// once; the Output forms wait for their arguments and keep secrets (the payment portal URL) secret.

const token = (name: string) => `gamehost:index:${name}`;

/** Reads what a client needs to know about the deployment (no token needed). */
export function getBootstrap(opts?: pulumi.InvokeOptions): Promise<GetBootstrapResult> {
  return pulumi.runtime.invoke(token("getBootstrap"), {}, opts);
}
/** Output form of {@link getBootstrap}. */
export function getBootstrapOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetBootstrapResult> {
  return pulumi.runtime.invokeOutput(token("getBootstrap"), {}, opts);
}

/** Lists the games of every group the caller belongs to, and those groups. */
export function getGames(opts?: pulumi.InvokeOptions): Promise<GetGamesResult> {
  return pulumi.runtime.invoke(token("getGames"), {}, opts);
}
/** Output form of {@link getGames}. */
export function getGamesOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetGamesResult> {
  return pulumi.runtime.invokeOutput(token("getGames"), {}, opts);
}

/** Reads one game with its regions, namespaces and versions. */
export function getGame(args: GetGameArgs, opts?: pulumi.InvokeOptions): Promise<GetGameResult> {
  return pulumi.runtime.invoke(token("getGame"), { ...args }, opts);
}
/** Output form of {@link getGame}. */
export function getGameOutput(
  args: GetGameOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGameResult> {
  return pulumi.runtime.invokeOutput(token("getGame"), { ...args }, opts);
}

/** Finds a game by name id (or UUID) and one of its environments by name id: the ids a Server needs. */
export function getEnvironment(
  args: GetEnvironmentArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetEnvironmentResult> {
  return pulumi.runtime.invoke(token("getEnvironment"), { ...args }, opts);
}
/** Output form of {@link getEnvironment}. */
export function getEnvironmentOutput(
  args: GetEnvironmentOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetEnvironmentResult> {
  return pulumi.runtime.invokeOutput(token("getEnvironment"), { ...args }, opts);
}

/** Lists the datacenters a game's servers can run in, optionally one by slug or name. */
export function getDatacenters(
  args: GetDatacentersArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetDatacentersResult> {
  return pulumi.runtime.invoke(token("getDatacenters"), { ...args }, opts);
}
/** Output form of {@link getDatacenters}. */
export function getDatacentersOutput(
  args: GetDatacentersOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetDatacentersResult> {
  return pulumi.runtime.invokeOutput(token("getDatacenters"), { ...args }, opts);
}

/** Lists the builds of an environment, newest first, optionally those carrying every given tag. */
export function getBuilds(args: GetBuildsArgs, opts?: pulumi.InvokeOptions): Promise<GetBuildsResult> {
  return pulumi.runtime.invoke(token("getBuilds"), { ...args }, opts);
}
/** Output form of {@link getBuilds}. */
export function getBuildsOutput(
  args: GetBuildsOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetBuildsResult> {
  return pulumi.runtime.invokeOutput(token("getBuilds"), { ...args }, opts);
}

/** Reads a group's billing record. */
export function getGroupBilling(
  args: GetGroupBillingArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetGroupBillingResult> {
  return pulumi.runtime.invoke(token("getGroupBilling"), { ...args }, opts);
}
/** Output form of {@link getGroupBilling}. */
export function getGroupBillingOutput(
  args: GetGroupBillingOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGroupBillingResult> {
  return pulumi.runtime.invokeOutput(token("getGroupBilling"), { ...args }, opts);
}

/** Opens a payment portal session for a group. The URL is personal and short-lived. */
export function createPaymentPortalSession(
  args: CreatePaymentPortalSessionArgs,
  opts?: pulumi.InvokeOptions,
): Promise<CreatePaymentPortalSessionResult> {
  return pulumi.runtime.invoke(token("createPaymentPortalSession"), { ...args }, opts);
}
/** Output form of {@link createPaymentPortalSession}: the result is a secret. */
export function createPaymentPortalSessionOutput(
  args: CreatePaymentPortalSessionOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<CreatePaymentPortalSessionResult> {
  return pulumi.runtime.invokeOutput(token("createPaymentPortalSession"), { ...args }, opts);
}
