/** Puts a folder filled by `fill` in `target`'s place in one step; `target` is untouched when `fill` throws. */
export function replaceDir(target: string, fill: (staging: string) => void): void;
/** Swaps two folders in one step where the system can, else by renames. */
export function exchange(a: string, b: string): void;
/** Swaps two folders by three renames. */
export function swapByRenames(a: string, b: string): void;
