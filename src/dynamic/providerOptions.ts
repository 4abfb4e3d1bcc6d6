/**
 * What the dynamic face does with the resource options that name a provider or a timeout. A dynamic
 * resource is served by Pulumi's dynamic provider host, configured by the stack's `gamehost:*` settings:
 * a gamehost provider given to it would be used by nothing. Left alone, an explicit `provider` makes the
 * engine send the dynamic type to that provider (an error naming types the user never wrote), and one
 * inherited from a parent's `providers` is ignored without a word, so the server goes to the stack's
 * service instead of the provider's. Both fail here, where the user declared them, naming the fix; ignored
 * `customTimeouts`, and `replaceOnChanges` entries the engine cannot match, are said once per resource.
 */
import * as pulumi from "@pulumi/pulumi";
import { CONFIG_KEYS } from "../api/config";
import { GamehostError } from "../api/errors";
import { refuseDeletedWith } from "../programArgs/registration";
import { checkConfigKeptInState } from "./configInState";
import { checkHostCanLoad } from "./hostCanLoad";

const CONNECTION = `the stack's ${CONFIG_KEYS.baseUrl.key} and ${CONFIG_KEYS.token.key} (or ${CONFIG_KEYS.baseUrl.env} and ${CONFIG_KEYS.token.env})`;

/** The gamehost provider a parent passes down through `providers`, if any. */
function inheritedGamehostProvider(parent: pulumi.Resource | undefined): pulumi.ProviderResource | undefined {
  // A parent made by another copy of the SDK may lack the method: it then passes nothing this face would use.
  return typeof parent?.getProvider === "function" ? parent.getProvider("gamehost:index:Server") : undefined;
}

/** Where a provider reached the resource, as the message says it, or undefined when none did. */
function providerGiven(opts: {
  provider?: pulumi.ProviderResource;
  parent?: pulumi.Resource;
}): string | undefined {
  if (opts.provider !== undefined) return "its `provider` option";
  if (inheritedGamehostProvider(opts.parent) !== undefined)
    return "the gamehost provider its parent passes down (`providers` of a parent)";
  return undefined;
}

/**
 * The `replaceOnChanges` entries that name a property the kind updates in place (`*`, a top-level name, or a
 * path under one: `template.tags`, `datacenters["us-east-atl"]`). The SDK's dynamic provider host answers the
 * engine's diff with whether something changed but not which property, so the engine matches no entry and
 * the change stays an update.
 */
function unmatchedReplaceOnChanges(inPlace: readonly string[], entries: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    // `*` is named with what it covers here: the properties a change of which stays an update.
    if (entry === "*") return inPlace.length > 0 ? [`* (that is ${inPlace.join(", ")})`] : [];
    const top = /^[^.[]+/.exec(entry)?.[0] ?? entry;
    return inPlace.includes(top) ? [entry] : [];
  });
}

/**
 * The options of a dynamic resource: fails when a provider would be given to it, warns that
 * `customTimeouts`, and `replaceOnChanges` entries naming what the kind updates in place, have no effect,
 * and checks what of the stack's config its provider keeps in the state (configInState.ts).
 */
export function dynamicResourceOptions(
  kind: string,
  name: string,
  opts: pulumi.CustomResourceOptions | undefined,
  /** The kind's `updatedInPlace` (src/kinds), as generated into its class. */
  updatedInPlace: readonly string[],
  /** What the kind's serialized shim loads in the provider host (`pulumi-gamehost/provider/<hostSubpath>`). */
  hostModule: string,
): pulumi.CustomResourceOptions | undefined {
  checkHostCanLoad(kind, name, hostModule);
  checkConfigKeptInState();
  if (opts === undefined) return opts;
  refuseDeletedWith(kind, name, opts);
  if (opts.import !== undefined) {
    // Left to the engine, the import fails in the SDK's dynamic provider host ("code must be a string, not
    // undefined", with its stack trace): an import carries no serialized provider to rebuild.
    const instead =
      kind === "Server"
        ? 'Adopt the running server with adoptServerId: "<serverId>" in its arguments instead (docs/adopting-servers.md), or declare it with gamehost.native.Server, which takes the import option.'
        : kind === "Fleet"
          ? "Declare it with gamehost.native.Fleet, which takes the import option (docs/languages.md)."
          : "An export cannot be imported on either face: the service keeps no record of exports.";
    throw new GamehostError(
      `${kind} "${name}" is a dynamic resource (pulumi-nodejs:dynamic/gamehost:${kind}), which Pulumi cannot import (pulumi/pulumi#16175): remove the import option. ${instead}`,
    );
  }
  const given = providerGiven(opts);
  if (given !== undefined) {
    throw new GamehostError(
      `${kind} "${name}" is a dynamic resource (pulumi-nodejs:dynamic/gamehost:${kind}), which takes no provider: it connects with ${CONNECTION}, so ${given} would not be used. ` +
        `To use an explicit provider, declare it with gamehost.native.${kind} (the provider plugin; see docs/languages.md, "TypeScript without dynamic providers").`,
    );
  }
  if (opts.customTimeouts !== undefined) {
    const instead =
      kind === "LobbyHistoryExport"
        ? `Declare it with gamehost.native.${kind}`
        : `Bound the wait with readyTimeoutSeconds, or declare it with gamehost.native.${kind}`;
    void pulumi.log.warn(
      `${kind} "${name}": customTimeouts have no effect on a dynamic resource (Pulumi's dynamic provider host ignores them). ${instead}, whose provider honours them.`,
    );
  }
  const unmatched = unmatchedReplaceOnChanges(updatedInPlace, opts.replaceOnChanges ?? []);
  if (unmatched.length > 0) {
    void pulumi.log.warn(
      `${kind} "${name}": replaceOnChanges has no effect on a dynamic resource for ${unmatched.join(", ")} (Pulumi's dynamic provider host does not tell the engine which properties changed): a change there is an update. ` +
        `To replace it, run \`pulumi up --replace <urn>\` or set the replacementTrigger option, or declare it with gamehost.native.${kind}, whose provider honours replaceOnChanges.`,
    );
  }
  return opts;
}

/**
 * A program-side data source's options: fails when a provider would be given to it. `called`: the form the
 * program called (the Output form, or the Promise form given options in plain JavaScript).
 */
export function checkFunctionOptions(
  name: string,
  opts: { provider?: pulumi.ProviderResource; parent?: pulumi.Resource } | undefined,
  called = `${name}Output`,
): void {
  if (opts === undefined) return;
  const given = providerGiven(opts);
  if (given === undefined) return;
  throw new GamehostError(
    `${called} (pulumi-gamehost) runs in the program and takes no provider: it connects with ${CONNECTION}, so ${given} would not be used. ` +
      `To call it through an explicit provider, use gamehost.native.${called} (the provider plugin; see docs/languages.md, "TypeScript without dynamic providers").`,
  );
}

/**
 * What a data source's Promise form was given beyond its arguments (`undefined` aside): fails naming where
 * the options go, as the Output form's check does for a provider.
 */
export function checkPromiseFormArguments(name: string, extra: readonly unknown[], expected: 0 | 1): void {
  const given = extra.filter((value) => value !== undefined);
  if (given.length === 0) return;
  const [first] = given;
  if (given.length === 1 && first !== null && typeof first === "object")
    checkFunctionOptions(name, first as Parameters<typeof checkFunctionOptions>[1], name);
  const takes = expected === 0 ? "no argument" : "one argument (its arguments object)";
  throw new GamehostError(
    `${name} (pulumi-gamehost) takes ${takes} and was given ${given.length} more, which it would not read. ` +
      `Options (dependsOn) go to its Output form: ${name}Output(${expected === 0 ? "" : "args, "}{ dependsOn }).`,
  );
}
