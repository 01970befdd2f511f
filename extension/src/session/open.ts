// Opening a session of an agent of the registry: its backend module's connector, run by a
// SessionDriver. The one way the chat and tether-cli start an agent.

import type { AgentEntry, SessionRequest } from "../backends/backend";
import type { AuditRecord } from "../generated/core";
import type { PermissionAnswer, PermissionMode } from "./agent";
import { SessionDriver } from "./driver";
import type { PermissionRequestEvent, UiEvent } from "./events";

export interface SessionHandlers {
  mode?: PermissionMode;
  model?: string;
  onEvent(event: UiEvent): void;
  onPermission(request: PermissionRequestEvent, signal: AbortSignal): Promise<PermissionAnswer>;
  onAudit?(record: AuditRecord): void;
  onSettingsWritten?(path: string, text: string): void;
}

/** A started session of `entry`; rejects with a clear message when it cannot start. */
export async function openSession(entry: AgentEntry, request: SessionRequest, handlers: SessionHandlers): Promise<SessionDriver> {
  const connector = await entry.backend.connector(entry, request);
  const servers = request.projectServers;
  // The project's servers, then the window's own (the IDE tools).
  const mcpServers = [...(servers?.entries ?? []), ...(request.mcpServers ?? [])];
  if (servers) {
    // The project's servers go when the connector does: when the session stops or its agent exits.
    const closeConnector = connector.close?.bind(connector);
    connector.close = async () => {
      await closeConnector?.();
      await servers.close();
    };
  }
  const driver = new SessionDriver({
    host: request.host,
    connector,
    root: request.root,
    ...(request.mirror ? { mirror: request.mirror } : {}),
    ...(request.remote ? { remote: request.remote } : {}),
    ...(request.additionalFolders?.length ? { additionalFolders: request.additionalFolders } : {}),
    ...(request.projectSettings ? { projectSettings: request.projectSettings } : {}),
    ...(request.resume ? { resume: request.resume } : {}),
    ...(request.checkpoints ? { checkpoints: request.checkpoints } : {}),
    ...(mcpServers.length ? { mcpServers } : {}),
    hooks: { project: true, user: request.settings.hooks?.user === true },
    ...(handlers.mode ? { mode: handlers.mode } : {}),
    ...(handlers.model ? { model: handlers.model } : {}),
    onEvent: handlers.onEvent,
    onPermission: handlers.onPermission,
    ...(handlers.onAudit ? { onAudit: handlers.onAudit } : {}),
    ...(handlers.onSettingsWritten ? { onSettingsWritten: handlers.onSettingsWritten } : {}),
    log: request.log,
  });
  await driver.start();
  return driver;
}
