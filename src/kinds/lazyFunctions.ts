/**
 * The data-source table ({@link import("./functions").FUNCTIONS}), loaded on its first use. The program's
 * faces import this one: building the definitions' zod schemas (and the client they pull in) costs every
 * `preview` and `up` tens of ms of start-up, and a program that calls no data source needs none of it.
 */
import type { FUNCTIONS as Table } from "./functions";

type FunctionTable = typeof Table;

let table: FunctionTable | undefined;
const load = (): FunctionTable =>
  (table ??= (require("./functions") as typeof import("./functions")).FUNCTIONS);

/** The same table as `FUNCTIONS` of ./functions; a property read loads it. */
export const FUNCTIONS: FunctionTable = new Proxy({} as FunctionTable, {
  get: (_target, key) => Reflect.get(load(), key),
  has: (_target, key) => Reflect.has(load(), key),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_target, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
    // A proxy may not report a property its (empty) target lacks as non-configurable.
    return descriptor && { ...descriptor, configurable: true };
  },
});
