/**
 * The package's TypeScript types, generated from the package schema (`generated/`): resource and
 * function arguments and results, and the nested types as `input.XArgs` / `output.X`, as Pulumi's code
 * generator names them. Both faces (the dynamic resources and `pulumi-gamehost/native`) use them.
 */
export * from "./generated/enums";
export * from "./generated/functions";
export * as input from "./generated/input";
export * as output from "./generated/output";
export * from "./generated/resources";
