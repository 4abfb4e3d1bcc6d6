// Declared apart from placement.ts so that `pulumi-gamehost/emulator`'s declarations stay free of zod.

/** Whether new servers get placed. */
export type PlacementMode = "auto" | "never";
