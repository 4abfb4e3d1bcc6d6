/**
 * Where each client's settings came from, for the package's own code (the resources' operations) to word
 * advice by; not part of `pulumi-gamehost/api`.
 */
import type { SettingOrigins } from "./errors/settingAdvice";

const ORIGINS = new WeakMap<object, SettingOrigins>();

export function noteClientOrigins(client: object, origins: SettingOrigins): void {
  ORIGINS.set(client, origins);
}

export const clientOrigins = (client: object): SettingOrigins | undefined => ORIGINS.get(client);
