import * as pulumi from "@pulumi/pulumi";
import { type Camelize, toCamelKeys } from "../api/case";
import type {
  Bootstrap,
  GetGameResponse,
  GetGroupBillingResponse,
  ListGamesResponse,
  PaymentIntent,
} from "../api/schemas";
import { functionClient, outputFunction } from "./invoke";

/** What the service says a client needs to use the cloud API (login methods, domains, origins…). */
export type GetBootstrapResult = Camelize<Bootstrap>;
/** The caller's games and the groups they belong to. */
export type GetGamesResult = Camelize<ListGamesResponse>;
/** One game with its regions, namespaces (environments) and versions. */
export type GetGameResult = Camelize<GetGameResponse>;
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
export async function getBootstrap(): Promise<GetBootstrapResult> {
  return toCamelKeys(await functionClient({ tokenRequired: false }).getBootstrap());
}
/** Output form of {@link getBootstrap}. */
export function getBootstrapOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetBootstrapResult> {
  return outputFunction({}, opts, () => getBootstrap());
}

/** Lists the games of every group the caller belongs to (a cloud token: its one game). */
export async function getGames(): Promise<GetGamesResult> {
  return toCamelKeys(await functionClient().listGames());
}
/** Output form of {@link getGames}. */
export function getGamesOutput(opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetGamesResult> {
  return outputFunction({}, opts, () => getGames());
}

/** Reads one game with its regions, namespaces and versions. */
export async function getGame(args: GetGameArgs): Promise<GetGameResult> {
  return toCamelKeys(await functionClient().getGame(args.gameId));
}
/** Output form of {@link getGame}. */
export function getGameOutput(
  args: GetGameOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGameResult> {
  return outputFunction(args, opts, (a) => getGame(a));
}

/** Reads a group's billing record (marked "coming soon" by the service). */
export async function getGroupBilling(args: GetGroupBillingArgs): Promise<GetGroupBillingResult> {
  return toCamelKeys(await functionClient().getGroupBilling(args.groupId));
}
/** Output form of {@link getGroupBilling}. */
export function getGroupBillingOutput(
  args: GetGroupBillingOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGroupBillingResult> {
  return outputFunction(args, opts, (a) => getGroupBilling(a));
}

/** Opens a payment portal session for a group. The URL is personal and short-lived. */
export async function createPaymentPortalSession(
  args: CreatePaymentPortalSessionArgs,
): Promise<CreatePaymentPortalSessionResult> {
  const session = await functionClient().createPaymentPortalSession(args.groupId, { intent: args.intent });
  return { url: session.payment_session_url };
}
/** Output form of {@link createPaymentPortalSession}: the result is a secret. */
export function createPaymentPortalSessionOutput(
  args: CreatePaymentPortalSessionOutputArgs,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<CreatePaymentPortalSessionResult> {
  return pulumi.secret(outputFunction(args, opts, (a) => createPaymentPortalSession(a)));
}
