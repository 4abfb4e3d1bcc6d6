/**
 * Reserved tag carried by every server this package creates. Its value is derived from the
 * resource's organization, project, stack, name and spec, so a create whose answer was lost can find the server it made —
 * in the same run or the next — instead of making a second one. It never appears in `tags` outputs.
 */
export const IDEMPOTENCY_TAG = "pulumi-gamehost/idempotency-key";

/** Reserved tag on every server of a fleet: the fleet's key (how refresh, import and sweeps find them). */
export const FLEET_TAG = "pulumi-gamehost/fleet";
/** Reserved tag on every server of a fleet: its slot in its datacenter (`<slot>`). */
export const FLEET_SLOT_TAG = "pulumi-gamehost/fleet-slot";
/** The tags a fleet sets on its servers: a server carrying them is that fleet's. */
export const FLEET_TAGS = [FLEET_TAG, FLEET_SLOT_TAG] as const;
