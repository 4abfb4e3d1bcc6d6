export * from "./cloud";
export * from "./common";
export * from "./lobbies";
export * from "./servers";
