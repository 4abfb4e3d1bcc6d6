import * as pulumi from "@pulumi/pulumi";
import { GamehostError } from "../api/errors";
import { FUNCTIONS } from "../functions/definitions";
import { dependencyReady } from "../functions/invoke";
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
// A failed invoke reaches the program as the plugin's message alone (see invokeError).

const token = (name: string) => `gamehost:index:${name}`;

/**
 * The SDK rejects a failed invoke with a bare `Error` (the engine's text, prefixed
 * `invocation of <token> returned an error: `, or `Invoke of '<token>' failed: ` for argument
 * failures): such an error prints with its stack trace. The plugin's message already names the cause
 * and the fix, so it is rethrown alone, as the package's own error (printed as its message only), the
 * way the program-side data sources fail.
 */
function invokeError(name: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const prefixes = [
    `invocation of ${token(name)} returned an error: `,
    `Invoke of '${token(name)}' failed: `,
  ];
  const prefix = prefixes.find((p) => error.message.startsWith(p)) ?? "";
  return new GamehostError(error.message.slice(prefix.length));
}

/** Invokes the plugin's data source `name` with plain arguments. */
async function call<R>(name: string, args: Record<string, unknown>, opts?: pulumi.InvokeOptions): Promise<R> {
  try {
    return (await pulumi.runtime.invoke(token(name), args, opts)) as R;
  } catch (error) {
    throw invokeError(name, error);
  }
}

/**
 * The Output form: runs once its arguments are known and its `dependsOn` resources exist, as the
 * program-side data sources do. Resolving the arguments here (not in the SDK's invoke) keeps a failed
 * argument (another data source's error) from being reported once more, with a stack trace, by every
 * invoke it reaches; its error reaches the program once, as itself.
 */
function callOutput<R>(
  name: keyof typeof FUNCTIONS,
  args: unknown,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<R> {
  const { dependsOn: _dependsOn, ...invokeOptions } = opts ?? {};
  const result = pulumi
    .all([pulumi.output(args), dependencyReady(opts?.dependsOn)])
    .apply(([resolved]) =>
      call<R>(name, { ...(resolved as Record<string, unknown>) }, invokeOptions as pulumi.InvokeOptions),
    ) as pulumi.Output<R>;
  return FUNCTIONS[name].secret ? (pulumi.secret(result) as pulumi.Output<R>) : result;
}

/** Reads what a client needs to know about the deployment (no token needed). */
export function getBootstrap(opts?: pulumi.InvokeOptions): Promise<GetBootstrapResult> {
  return call("getBootstrap", {}, opts);
}
/** Output form of {@link getBootstrap}. */
export function getBootstrapOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetBootstrapResult> {
  return callOutput("getBootstrap", {}, opts);
}

/** Lists the games of every group the caller belongs to, and those groups. */
export function getGames(opts?: pulumi.InvokeOptions): Promise<GetGamesResult> {
  return call("getGames", {}, opts);
}
/** Output form of {@link getGames}. */
export function getGamesOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetGamesResult> {
  return callOutput("getGames", {}, opts);
}

/** Reads one game with its regions, namespaces and versions. */
export function getGame(args: GetGameArgs, opts?: pulumi.InvokeOptions): Promise<GetGameResult> {
  return call("getGame", { ...args }, opts);
}
/** Output form of {@link getGame}. */
export function getGameOutput(
  args: GetGameOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGameResult> {
  return callOutput("getGame", { ...args }, opts);
}

/** Finds a game by name id (or UUID) and one of its environments by name id: the ids a Server needs. */
export function getEnvironment(
  args: GetEnvironmentArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetEnvironmentResult> {
  return call("getEnvironment", { ...args }, opts);
}
/** Output form of {@link getEnvironment}. */
export function getEnvironmentOutput(
  args: GetEnvironmentOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetEnvironmentResult> {
  return callOutput("getEnvironment", { ...args }, opts);
}

/** Lists the datacenters a game's servers can run in, optionally one by slug or name. */
export function getDatacenters(
  args: GetDatacentersArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetDatacentersResult> {
  return call("getDatacenters", { ...args }, opts);
}
/** Output form of {@link getDatacenters}. */
export function getDatacentersOutput(
  args: GetDatacentersOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetDatacentersResult> {
  return callOutput("getDatacenters", { ...args }, opts);
}

/** Lists the builds of an environment, newest first, optionally those carrying every given tag. */
export function getBuilds(args: GetBuildsArgs, opts?: pulumi.InvokeOptions): Promise<GetBuildsResult> {
  return call("getBuilds", { ...args }, opts);
}
/** Output form of {@link getBuilds}. */
export function getBuildsOutput(
  args: GetBuildsOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetBuildsResult> {
  return callOutput("getBuilds", { ...args }, opts);
}

/** Reads a group's billing record. */
export function getGroupBilling(
  args: GetGroupBillingArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetGroupBillingResult> {
  return call("getGroupBilling", { ...args }, opts);
}
/** Output form of {@link getGroupBilling}. */
export function getGroupBillingOutput(
  args: GetGroupBillingOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGroupBillingResult> {
  return callOutput("getGroupBilling", { ...args }, opts);
}

/** Opens a payment portal session for a group. The URL is personal and short-lived. */
export function createPaymentPortalSession(
  args: CreatePaymentPortalSessionArgs,
  opts?: pulumi.InvokeOptions,
): Promise<CreatePaymentPortalSessionResult> {
  return call("createPaymentPortalSession", { ...args }, opts);
}
/** Output form of {@link createPaymentPortalSession}: the result is a secret. */
export function createPaymentPortalSessionOutput(
  args: CreatePaymentPortalSessionOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<CreatePaymentPortalSessionResult> {
  return callOutput("createPaymentPortalSession", { ...args }, opts);
}
