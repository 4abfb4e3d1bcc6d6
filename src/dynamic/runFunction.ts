import * as pulumi from "@pulumi/pulumi";
import type { GamehostClient } from "../api/client";
import { readSettings, requireConnection } from "../api/config";
import { withLookalikeHint } from "../api/configHint";
import { GamehostConfigError, withMessageAsStack } from "../api/errors";
import { textsOf, withoutSecrets } from "../api/redact";
import type { FunctionDefinition } from "../kinds/functions";
import { checkFunctionOptions, checkPromiseFormArguments } from "./providerOptions";
import { firstOfItsCause } from "./reportedOnce";
import { settledApart } from "./settledApart";

// The client (undici) and the data sources' checks (zod) are loaded by the first data source a program
// calls, not by loading the package: every `preview` and `up` pays its start-up, most programs call none.
const clientModule = () => require("../api/client") as typeof import("../api/client");
const validateModule = () => require("../api/validate") as typeof import("../api/validate");
const callsModule = () => require("../kinds/dataSourceCalls") as typeof import("../kinds/dataSourceCalls");

/** The program's data-source warnings: one wait many data sources meet is told once. */
let programWarn: ((message: string) => void) | undefined;

/**
 * A client for data sources, which run in the program's own process: settings come from the stack
 * config (`gamehost:baseUrl`, `gamehost:token`) and then the `GAMEHOST_*` environment variables.
 * Read at call time, never captured.
 */
export function functionClient(
  options: { tokenRequired: boolean } = { tokenRequired: true },
): GamehostClient {
  const settings = readSettings((key) => pulumi.runtime.getConfig(key));
  const { dataSourceClientOptions, warnOnce } = callsModule();
  programWarn ??= warnOnce((message) => void pulumi.log.warn(message));
  return new (clientModule().GamehostClient)({
    ...(options.tokenRequired ? requireConnection(settings) : settings),
    // A wait for the service's Retry-After is told as a warning of the stack, not left a silence.
    ...dataSourceClientOptions(programWarn),
  });
}

function clientFor(definition: FunctionDefinition<unknown, unknown>): GamehostClient {
  try {
    return functionClient({ tokenRequired: definition.needsToken });
  } catch (error) {
    if (!(error instanceof GamehostConfigError)) throw error;
    withLookalikeHint(error, Object.keys(pulumi.runtime.allConfig()), pulumi.getProject());
    // Every data source meets the same missing setting: one error, printed once.
    throw firstOfItsCause(error);
  }
}

/**
 * Runs a data source in the program's process: arguments checked, then the service called. Its promise
 * settles apart from the work (see {@link settledApart}), so a failure reaches the program in moments.
 */
export function runFunction<A, R>(
  definition: FunctionDefinition<A, R>,
  args: unknown,
  secrets: readonly string[] = [],
): Promise<R> {
  return settledApart(async () => {
    try {
      const checked = validateModule().parseWith(definition.args, args, `arguments of ${definition.name}`);
      try {
        return await definition.run(clientFor(definition as FunctionDefinition<unknown, unknown>), checked);
      } catch (error) {
        throw firstOfItsCause(callsModule().dataSourceFailure(error));
      }
    } catch (error) {
      throw withMessageAsStack(withoutSecrets(error, secrets));
    }
  });
}

/**
 * The Promise form of a data source: {@link runFunction}, refusing what plain JavaScript passes beyond its
 * `expected` arguments (TypeScript refuses them). An options object there was read by nothing: a `provider`
 * (another service) or a `dependsOn` ignored without a word.
 */
export function promiseFunction<A, R>(
  definition: FunctionDefinition<A, R>,
  args: unknown,
  given: IArguments,
  expected: 0 | 1,
): Promise<R> {
  checkPromiseFormArguments(definition.name, Array.from(given).slice(expected), expected);
  return runFunction(definition, args);
}

/** Which top-level arguments were given as secrets (every one when the arguments are one secret Output). */
export async function secretArgumentNames(args: unknown): Promise<readonly string[] | "all"> {
  if (pulumi.Output.isInstance(args)) return (await pulumi.isSecret(args)) ? "all" : [];
  if (args === null || typeof args !== "object") return [];
  const names: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (await pulumi.isSecret(pulumi.output(value))) names.push(name);
  }
  return names;
}

/** The text of the named arguments of `resolved` (a name, a map's keys and values), to keep out of errors. */
export function secretArgumentValues(resolved: unknown, names: readonly string[] | "all"): string[] {
  if (resolved === null || typeof resolved !== "object") return [];
  const record = resolved as Record<string, unknown>;
  return (names === "all" ? Object.keys(record) : names).flatMap((name) => textsOf(record[name]));
}

type ExpandDependencies = (
  resources: Set<pulumi.Resource>,
  exclude: Set<pulumi.Resource>,
) => Promise<pulumi.Resource[]>;

/**
 * The resources a `dependsOn` list stands for, as the SDK's own invokes read it: a component stands for its
 * children, transitively (its urn is known before they exist). The SDK's expansion is internal; every release
 * we support has it, and without it the list is taken as given.
 */
function dependencyResources(list: pulumi.Resource[]): Promise<pulumi.Resource[]> {
  let expand: ExpandDependencies | undefined;
  try {
    expand = (
      require("@pulumi/pulumi/runtime/dependsOn") as {
        getAllTransitivelyReferencedResources?: ExpandDependencies;
      }
    ).getAllTransitivelyReferencedResources;
  } catch {
    expand = undefined;
  }
  return expand ? expand(new Set(list), new Set()) : Promise.resolve(list);
}

/**
 * Outputs that resolve once every `dependsOn` resource exists (its id for custom resources), a component's
 * children included.
 */
function dependencyReady(dependsOn: pulumi.InvokeOutputOptions["dependsOn"]): pulumi.Output<unknown[]> {
  if (dependsOn === undefined) return pulumi.output([]);
  const resolved = pulumi.output(dependsOn) as unknown as pulumi.Output<pulumi.Resource | pulumi.Resource[]>;
  return resolved
    .apply((deps) => dependencyResources(Array.isArray(deps) ? deps : [deps]))
    .apply((list) =>
      pulumi.all(
        list.map((r) => (pulumi.CustomResource.isInstance(r) ? (r as pulumi.CustomResource).id : r.urn)),
      ),
    ) as pulumi.Output<unknown[]>;
}

/**
 * The Output form of a data source: runs once its arguments are known and its `dependsOn`
 * resources exist; in a preview with unknown arguments it stays unknown, as invokes do. A secret
 * result comes back as a secret Output.
 */
export function outputFunction<A, R>(
  definition: FunctionDefinition<A, R>,
  args: unknown,
  opts: pulumi.InvokeOutputOptions | undefined,
): pulumi.Output<R> {
  checkFunctionOptions(definition.name, opts);
  return whenReady(args, opts?.dependsOn, definition.secret, (resolved, secrets) =>
    runFunction(definition, resolved, secrets),
  );
}

/**
 * An Output form's result, on either face: `call` runs once the arguments are known and every `dependsOn`
 * resource exists, given the texts of the arguments given as secrets (to keep out of its errors); a
 * `secret` result comes back as a secret Output.
 */
export function whenReady<R>(
  args: unknown,
  dependsOn: pulumi.InvokeOutputOptions["dependsOn"],
  secret: boolean,
  call: (resolved: unknown, secrets: readonly string[]) => Promise<R>,
): pulumi.Output<R> {
  const secretNames = secretArgumentNames(args);
  const result = pulumi
    .all([pulumi.output(args), dependencyReady(dependsOn)])
    .apply(([resolved]) =>
      settledApart(async () => call(resolved, secretArgumentValues(resolved, await secretNames))),
    ) as pulumi.Output<R>;
  return secret ? (pulumi.secret(result) as pulumi.Output<R>) : result;
}
