/**
 * The Server kind as the dynamic provider host calls it: what `pulumi-gamehost/provider/server` loads. The
 * serialized shim of every Server in stack state `require`s that subpath at call time, so nothing here is
 * ever serialized, and the exported names and shapes stay as deployed stacks call them.
 */
import { serverKind } from "../../kinds/server/implementation";
import { dynamicHostModule } from "../hostModule";

export { configure } from "../settings";

const host = dynamicHostModule(serverKind);
export const { check, diff, create, read, update } = host;
const deleteResource = host.delete;

export { deleteResource as delete };
