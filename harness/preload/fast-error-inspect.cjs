// Preloaded into the language host (`node --require <this file> …/cmd/run`) by the harness.
//
// Why: when a program throws, `@pulumi/pulumi/cmd/run/error.js: defaultErrorMessage` formats the error with
// `util.inspect(err, { colors: true })`. On Node 20 and 22 the colouring pass (`markNodeModules`) spins on
// the SDK's source-mapped stack frames until it dies with "Invalid string length" — 15-40 s later — and only
// then falls back to an uncoloured inspect. The colours are useless in a captured pipe, so errors are
// inspected without them; everything else keeps the original behaviour.
//
// It must load before cmd/run: the SDK copies `util`'s members when it first imports the module.
"use strict";

const util = require("node:util");

const original = util.inspect;

function inspect(value, options, ...rest) {
  if (value instanceof Error && options !== null && typeof options === "object" && options.colors) {
    return original.call(this, value, { ...options, colors: false }, ...rest);
  }
  return original.call(this, value, options, ...rest);
}

for (const key of Reflect.ownKeys(original)) {
  if (key === "length" || key === "name" || key === "prototype") continue;
  Object.defineProperty(inspect, key, Object.getOwnPropertyDescriptor(original, key));
}

util.inspect = inspect;
