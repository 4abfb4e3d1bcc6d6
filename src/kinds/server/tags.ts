/**
 * Reserved tag carried by every server this package creates. Its value is derived from the
 * resource's organization, project, stack, name and spec, so a create whose answer was lost can find the server it made —
 * in the same run or the next — instead of making a second one. It never appears in `tags` outputs.
 */
export const IDEMPOTENCY_TAG = "pulumi-gamehost/idempotency-key";
