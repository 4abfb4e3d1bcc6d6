// Self-test program with a type error and nothing else wrong: `pulumi up` type-checks TypeScript by default
// and refuses it; transpile-only (PULUMI_NODEJS_TRANSPILE_ONLY) runs it.
import * as pulumi from "@pulumi/pulumi";

const count: number = new pulumi.Config("selftest").get("count") ?? "three";

export const kind = typeof count;
