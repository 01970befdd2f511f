// Starting the agent for the chat: a SessionDriver on the project's host, with the project's setup
// (mirror, memory, subagents, remote facts) and the user's settings. The one place that knows which
// agent runs. No vscode import.

import { findClaude, SessionDriver } from "../session/driver";
import type { TetherSettings } from "../settings";
import type { AgentSession, AgentStart } from "./session";

export async function startClaude(start: AgentStart, settings: TetherSettings, log: (message: string) => void): Promise<AgentSession> {
  const { source, setup } = start;
  const session = new SessionDriver({
    host: source.host,
    root: source.root,
    ...(setup.mirror ? { mirror: setup.mirror } : {}),
    ...(setup.memory ? { extraSystemPrompt: setup.memory } : {}),
    ...(setup.agentFiles?.length ? { agentFiles: setup.agentFiles } : {}),
    ...(setup.remote ? { remote: setup.remote } : {}),
    claudePath: findClaude(settings.claudePath || undefined),
    mode: start.mode,
    ...(start.model ? { model: start.model } : {}),
    ...(start.resume ? { resume: start.resume } : {}),
    env: settings.environment,
    allowedTools: settings.allowedTools,
    disallowedTools: settings.disallowedTools,
    onEvent: start.onEvent,
    onPermission: start.onPermission,
    log,
  });
  log(
    `starting Claude Code in ${setup.mirror ?? source.root}${setup.mirror ? ` (mirror of ${source.root})` : ""}` +
      (start.resume ? ` (resume ${start.resume})` : ""),
  );
  await session.start();
  return session;
}
