/**
 * The data sources in the program's own process (the dynamic face): each runs its definition with a
 * client built from the stack config. Argument and result types are generated from the package schema.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  createPaymentPortalSession as createPaymentPortalSessionDefinition,
  getBootstrap as getBootstrapDefinition,
  getBuilds as getBuildsDefinition,
  getDatacenters as getDatacentersDefinition,
  getEnvironment as getEnvironmentDefinition,
  getGame as getGameDefinition,
  getGames as getGamesDefinition,
  getGroupBilling as getGroupBillingDefinition,
} from "../kinds/functions";
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
import { outputFunction, runFunction } from "./runFunction";

/** Reads the bootstrap data (`GET /cloud/bootstrap`; no token needed). */
export function getBootstrap(): Promise<GetBootstrapResult> {
  return runFunction(getBootstrapDefinition, {});
}
/** Output form of {@link getBootstrap}. */
export function getBootstrapOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetBootstrapResult> {
  return outputFunction(getBootstrapDefinition, {}, opts);
}

/** Lists the games of every group the caller belongs to (a cloud token: its one game). */
export function getGames(): Promise<GetGamesResult> {
  return runFunction(getGamesDefinition, {});
}
/** Output form of {@link getGames}. */
export function getGamesOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetGamesResult> {
  return outputFunction(getGamesDefinition, {}, opts);
}

/** Reads one game with its regions, namespaces and versions. */
export function getGame(args: GetGameArgs): Promise<GetGameResult> {
  return runFunction(getGameDefinition, args);
}
/** Output form of {@link getGame}. */
export function getGameOutput(
  args: GetGameOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGameResult> {
  return outputFunction(getGameDefinition, args, opts);
}

/**
 * Finds a game by name id (or UUID) and one of its environments by name id: the ids a Server needs,
 * without pasting UUIDs into a program.
 */
export function getEnvironment(args: GetEnvironmentArgs): Promise<GetEnvironmentResult> {
  return runFunction(getEnvironmentDefinition, args);
}
/** Output form of {@link getEnvironment}. */
export function getEnvironmentOutput(
  args: GetEnvironmentOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetEnvironmentResult> {
  return outputFunction(getEnvironmentDefinition, args, opts);
}

/** Lists the datacenters a game's servers can run in, optionally one by slug or name. */
export function getDatacenters(args: GetDatacentersArgs): Promise<GetDatacentersResult> {
  return runFunction(getDatacentersDefinition, args);
}
/** Output form of {@link getDatacenters}. */
export function getDatacentersOutput(
  args: GetDatacentersOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetDatacentersResult> {
  return outputFunction(getDatacentersDefinition, args, opts);
}

/** Lists the builds of an environment, newest first, optionally those carrying every given tag. */
export function getBuilds(args: GetBuildsArgs): Promise<GetBuildsResult> {
  return runFunction(getBuildsDefinition, args);
}
/** Output form of {@link getBuilds}. */
export function getBuildsOutput(
  args: GetBuildsOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetBuildsResult> {
  return outputFunction(getBuildsDefinition, args, opts);
}

/** Reads a group's billing record (marked "coming soon" by the service). */
export function getGroupBilling(args: GetGroupBillingArgs): Promise<GetGroupBillingResult> {
  return runFunction(getGroupBillingDefinition, args);
}
/** Output form of {@link getGroupBilling}. */
export function getGroupBillingOutput(
  args: GetGroupBillingOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGroupBillingResult> {
  return outputFunction(getGroupBillingDefinition, args, opts);
}

/** Opens a payment portal session for a group. The URL is personal and short-lived. */
export function createPaymentPortalSession(
  args: CreatePaymentPortalSessionArgs,
): Promise<CreatePaymentPortalSessionResult> {
  return runFunction(createPaymentPortalSessionDefinition, args);
}
/** Output form of {@link createPaymentPortalSession}: the result is a secret. */
export function createPaymentPortalSessionOutput(
  args: CreatePaymentPortalSessionOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<CreatePaymentPortalSessionResult> {
  return outputFunction(createPaymentPortalSessionDefinition, args, opts);
}
