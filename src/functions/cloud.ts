import type * as pulumi from "@pulumi/pulumi";
import type { Camelize } from "../api/case";
import type {
  Bootstrap,
  GetGameResponse,
  GetGroupBillingResponse,
  ListGamesResponse,
  PaymentIntent,
} from "../api/schemas";
import {
  type BuildsResult,
  createPaymentPortalSession as createPaymentPortalSessionDefinition,
  type DatacentersResult,
  type EnvironmentResult,
  getBootstrap as getBootstrapDefinition,
  getBuilds as getBuildsDefinition,
  getDatacenters as getDatacentersDefinition,
  getEnvironment as getEnvironmentDefinition,
  getGame as getGameDefinition,
  getGames as getGamesDefinition,
  getGroupBilling as getGroupBillingDefinition,
} from "./definitions";
import { outputFunction, runFunction } from "./invoke";

/** What the service says a client needs to use the cloud API (login methods, domains, origins…). */
export type GetBootstrapResult = Camelize<Bootstrap>;
/** The caller's games and the groups they belong to. */
export type GetGamesResult = Camelize<ListGamesResponse>;
/** One game with its regions, namespaces (environments) and versions. */
export type GetGameResult = Camelize<GetGameResponse>;
/** A game's environment found by names: the ids a Server needs. */
export type GetEnvironmentResult = Camelize<import("zod").infer<typeof EnvironmentResult>>;
/** Datacenters of a game's cluster. */
export type GetDatacentersResult = Camelize<import("zod").infer<typeof DatacentersResult>>;
/** Builds of an environment, newest first. */
export type GetBuildsResult = Camelize<import("zod").infer<typeof BuildsResult>>;
/** A group's billing timestamps (each absent until it happened). */
export type GetGroupBillingResult = Camelize<GetGroupBillingResponse>;

/** Arguments of {@link getGame}. */
export interface GetGameArgs {
  /** UUID of the game. */
  gameId: string;
}
/** Arguments of {@link getGameOutput}. */
export interface GetGameOutputArgs {
  /** UUID of the game. */
  gameId: pulumi.Input<string>;
}
/** Arguments of {@link getEnvironment}. */
export interface GetEnvironmentArgs {
  /** The game's name id (e.g. `space-race`) or UUID. */
  game: string;
  /** The environment's name id, e.g. `prod`. */
  environment: string;
}
/** Arguments of {@link getEnvironmentOutput}. */
export interface GetEnvironmentOutputArgs {
  /** The game's name id (e.g. `space-race`) or UUID. */
  game: pulumi.Input<string>;
  /** The environment's name id, e.g. `prod`. */
  environment: pulumi.Input<string>;
}
/** Arguments of {@link getDatacenters}. */
export interface GetDatacentersArgs {
  /** UUID of the game. */
  gameId: string;
  /** UUID of the environment (a namespace's `namespaceId`; see getEnvironment). */
  environmentId: string;
  /** Only the datacenter with this slug, e.g. `atl`. */
  slug?: string;
  /** Only the datacenter with this display name. */
  name?: string;
}
/** Arguments of {@link getDatacentersOutput}. */
export interface GetDatacentersOutputArgs {
  /** UUID of the game. */
  gameId: pulumi.Input<string>;
  /** UUID of the environment (a namespace's `namespaceId`; see getEnvironment). */
  environmentId: pulumi.Input<string>;
  /** Only the datacenter with this slug, e.g. `atl`. */
  slug?: pulumi.Input<string>;
  /** Only the datacenter with this display name. */
  name?: pulumi.Input<string>;
}
/** Arguments of {@link getBuilds}. */
export interface GetBuildsArgs {
  /** UUID of the game. */
  gameId: string;
  /** UUID of the environment (a namespace's `namespaceId`; see getEnvironment). */
  environmentId: string;
  /** Only builds carrying every one of these tags, e.g. `{ current: "true" }`. */
  tags?: Record<string, string>;
}
/** Arguments of {@link getBuildsOutput}. */
export interface GetBuildsOutputArgs {
  /** UUID of the game. */
  gameId: pulumi.Input<string>;
  /** UUID of the environment (a namespace's `namespaceId`; see getEnvironment). */
  environmentId: pulumi.Input<string>;
  /** Only builds carrying every one of these tags, e.g. `{ current: "true" }`. */
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}
/** Arguments of {@link getGroupBilling}. */
export interface GetGroupBillingArgs {
  /** UUID of the group (the caller must be a member). */
  groupId: string;
}
/** Arguments of {@link getGroupBillingOutput}. */
export interface GetGroupBillingOutputArgs {
  /** UUID of the group (the caller must be a member). */
  groupId: pulumi.Input<string>;
}
/** Arguments of {@link createPaymentPortalSession}. */
export interface CreatePaymentPortalSessionArgs {
  /** UUID of the group. */
  groupId: string;
  /** `general` (manage billing, invoices) or `payment_method_update` (add or replace a card). */
  intent: PaymentIntent;
}
/** Arguments of {@link createPaymentPortalSessionOutput}. */
export interface CreatePaymentPortalSessionOutputArgs {
  /** UUID of the group. */
  groupId: pulumi.Input<string>;
  /** `general` (manage billing, invoices) or `payment_method_update` (add or replace a card). */
  intent: pulumi.Input<PaymentIntent>;
}
/** A payment portal session. */
export interface CreatePaymentPortalSessionResult {
  /** Short-lived, personal portal URL: treat it as a secret (the Output form marks it so). */
  url: string;
}

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
