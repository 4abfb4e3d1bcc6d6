/**
 * A hard interruption (a double Ctrl-C) of a `pulumi destroy` or of an `up` that scales a list down leaves
 * the deletes it had under way as pending operations; the service did them. `gamehost drift` reported those
 * servers (45 of a 300-server scale-down) as "destroyed out of band" — someone else's doing — and counted
 * no pending operation. They are the stack's own interrupted deletes, which the next `pulumi up` (or a
 * `pulumi refresh`) finishes.
 */
import { describe, expect, it } from "vitest";
import { type DriftReport, driftLines, markInterruptedDeletes } from "../../src/reconcile/drift";
import { type Deployment, SERVER_TYPES } from "../../src/reconcile/state";

const urn = (name: string) => `urn:pulumi:dev::scale::${SERVER_TYPES.dynamic}::${name}`;

describe("a server whose delete a hard interruption left pending", () => {
  it("is reported as the stack's interrupted delete, not as destroyed out of band", () => {
    const deployment: Deployment = {
      resources: [],
      pending_operations: [
        { type: "deleting", resource: { urn: urn("br-10"), type: SERVER_TYPES.dynamic, id: "s-10" } },
      ],
    };
    const report: DriftReport = {
      stack: "dev",
      drifted: markInterruptedDeletes(
        [
          { urn: urn("br-10"), name: "br-10", type: SERVER_TYPES.dynamic, kind: "gone" },
          { urn: urn("br-11"), name: "br-11", type: SERVER_TYPES.dynamic, kind: "gone" },
        ],
        deployment,
      ),
      strays: [],
      pendingCreates: [],
      pendingDeletes: [],
      strayTags: {},
    };
    expect(driftLines(report)).toEqual([
      `gone     br-10 (${SERVER_TYPES.dynamic}): deleted by an interrupted update (its delete was left pending: the next \`pulumi up\` or \`pulumi refresh\` finishes it)`,
      `gone     br-11 (${SERVER_TYPES.dynamic}): destroyed out of band`,
      "dev: drift: 2 gone (1 by an interrupted delete), 0 changed, 0 strays, 0 pending creates",
    ]);
  });
});
