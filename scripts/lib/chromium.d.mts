import type { BrowserContext } from "playwright-core";

export const CHROMIUM_PATH: string;
export const hasChromium: boolean;
export const CHROMIUM_FLAGS: readonly string[];
/** A running browser with its own profile directory. */
export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}
export function launchChromium(options?: {
  profilePrefix?: string;
  args?: string[];
  timeout?: number;
}): Promise<LaunchedChromium>;
