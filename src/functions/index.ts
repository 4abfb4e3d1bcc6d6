export * from "./cloud";
