/**
 * The LobbyHistoryExport kind as the dynamic provider host calls it: what `pulumi-gamehost/provider/lobby-history-export` loads. The
 * serialized shim of every LobbyHistoryExport in stack state `require`s that subpath at call time, so nothing here is
 * ever serialized, and the exported names and shapes stay as deployed stacks call them.
 */
import { lobbyHistoryExportKind } from "../../kinds/lobbyHistoryExport/implementation";
import { dynamicHostModule } from "../hostModule";

export { configure } from "../settings";

const host = dynamicHostModule(lobbyHistoryExportKind);
export const { check, diff, create, read, update } = host;
const deleteResource = host.delete;

export { deleteResource as delete };
