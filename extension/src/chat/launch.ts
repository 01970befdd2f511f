// Starting the agent for the chat: the agent registry's entry by name, started by the launcher of
// its kind — a SessionDriver on the project's host, with the project's setup (mirror, memory,
// subagents, remote facts) and the user's settings. The one place that knows how each kind of
// agent starts (the OpenClaw gateway adds its launcher to LAUNCHERS). No vscode import.

import * as path from "node:path";
import { agentEntries, findAgent, resolveCommand, type AcpEntry, type AgentEntry, type ClaudeEntry, type OpenClawEntry } from "../agents/registry";
import type { SecretStore } from "../openclaw/deviceKey";
import { findClaude, SessionDriver } from "../session/driver";
import type { TetherSettings } from "../settings";
import type { AgentSession, AgentStart } from "./session";

/** Where the launchers may keep files of Tether's own (the settings an agent's launch names). */
export interface LaunchPlace {
  storageDir: string;
  /** VS Code's SecretStorage: the gateway token, Tether's device keys and the tokens a gateway issues. */
  secrets: SecretStore;
}

/** The SecretStorage key of the OpenClaw gateway token (set with "Tether: Set OpenClaw Gateway Token"). */
export const OPENCLAW_TOKEN_SECRET = "tether.openclaw.gatewayToken";

type Launcher<E extends AgentEntry> = (
  entry: E,
  start: AgentStart,
  settings: TetherSettings,
  place: LaunchPlace,
  log: (message: string) => void,
) => Promise<AgentSession>;

const LAUNCHERS: { [K in AgentEntry["kind"]]: Launcher<Extract<AgentEntry, { kind: K }>> } = {
  claude: startClaude,
  acp: startAcp,
  openclaw: startOpenClaw,
};

/** The registry's entries, with the user's `tether.agents`. */
export function agents(settings: TetherSettings): AgentEntry[] {
  return agentEntries(settings.agents);
}

/** Start the agent `start.agent` names. */
export function startAgent(start: AgentStart, settings: TetherSettings, place: LaunchPlace, log: (message: string) => void): Promise<AgentSession> {
  const entry = findAgent(agents(settings), start.agent);
  if (!entry) {
    const names = agents(settings).map((e) => e.name).join(", ");
    return Promise.reject(new Error(`there is no agent named ${start.agent} (tether.agent); the agents are ${names}`));
  }
  const launch = LAUNCHERS[entry.kind] as Launcher<AgentEntry>;
  return launch(entry, start, settings, place, log);
}

async function startClaude(_entry: ClaudeEntry, start: AgentStart, settings: TetherSettings, _place: LaunchPlace, log: (message: string) => void): Promise<AgentSession> {
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

async function startAcp(entry: AcpEntry, start: AgentStart, settings: TetherSettings, place: LaunchPlace, log: (message: string) => void): Promise<AgentSession> {
  const { source, setup } = start;
  const { command, args } = resolveCommand(entry);
  const session = new SessionDriver({
    host: source.host,
    root: source.root,
    ...(setup.mirror ? { mirror: setup.mirror } : {}),
    ...(setup.remote ? { remote: setup.remote } : {}),
    acp: {
      name: entry.name,
      displayName: entry.displayName,
      command,
      args,
      env: entry.env,
      ...(entry.profile ? { profile: entry.profile } : {}),
      ...(entry.allowLocalTools ? { allowLocalTools: true } : {}),
    },
    stateDir: path.join(place.storageDir, "agents", entry.name),
    mode: start.mode,
    ...(start.resume ? { resume: start.resume } : {}),
    ...(start.replay ? { replay: true } : {}),
    env: settings.environment,
    onEvent: start.onEvent,
    onPermission: start.onPermission,
    log,
  });
  log(
    `starting ${entry.displayName} (${command} ${args.join(" ")}) in ${setup.mirror ?? source.root}${setup.mirror ? ` (mirror of ${source.root})` : ""}` +
      (start.resume ? ` (resume ${start.resume})` : ""),
  );
  await session.start();
  return session;
}

async function startOpenClaw(entry: OpenClawEntry, start: AgentStart, settings: TetherSettings, place: LaunchPlace, log: (message: string) => void): Promise<AgentSession> {
  const { source, setup } = start;
  const url = settings.openclaw.gatewayUrl;
  if (!url) throw new Error(`${entry.displayName} needs a gateway: set tether.openclaw.gatewayUrl (ws://host:18789)`);
  // The stored token first; else the one the gateway's own CLI reads (a gateway started from this shell).
  const token = (await place.secrets.get(OPENCLAW_TOKEN_SECRET)) ?? (process.env["OPENCLAW_GATEWAY_TOKEN"]?.trim() || undefined);
  const session = new SessionDriver({
    host: source.host,
    root: source.root,
    ...(setup.mirror ? { mirror: setup.mirror } : {}),
    ...(setup.remote ? { remote: setup.remote } : {}),
    backend: "openclaw",
    gateway: {
      url,
      ...(token ? { token } : {}),
      secrets: place.secrets,
      ...(settings.openclaw.offerWorkspace
        ? { node: { displayName: `Tether (${path.basename(source.root)})`, platform: process.platform === "win32" ? "win32" : process.platform === "darwin" ? "darwin" : "linux" } }
        : {}),
    },
    mode: start.mode,
    ...(start.resume ? { resume: start.resume } : {}),
    onEvent: start.onEvent,
    onPermission: start.onPermission,
    log,
  });
  log(`connecting to the OpenClaw gateway at ${url}${settings.openclaw.offerWorkspace ? `, offering ${source.root} as its node` : ""}${start.resume ? ` (session ${start.resume})` : ""}`);
  await session.start();
  return session;
}
