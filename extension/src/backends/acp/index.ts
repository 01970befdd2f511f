// The ACP backend's module: any ACP agent over stdio (the known ones and `tether.agents`), started
// in the workspace's folder (or its mirror) with Tether's tools reaching its MCP client through the
// bridge, behind the session's permission gate. Its sessions are the agent's own (`session/list`,
// replayed when loaded).

import * as path from "node:path";
import type { AgentConfig } from "../../generated/core";
import { agentFolderProblem } from "../../session/agentFolder";
import { stateFolderProblem } from "../../session/stateFolder";
import { StdioTransport, stringEnv } from "../../session/transport";
import type { AgentEntry, BackendModule, CliSetup, Connector, SessionRequest } from "../backend";
import { acpAgents, profileFor, resolveCommand, type AcpAgent } from "./agents";
import { bridgeCommand, loadDelayMs, SessionBridge, sessionStarted, writeLaunchFiles } from "./bridge";

/** claude-agent-acp exits at once, codex-acp in ~2 s, gemini-cli with an MCP server never (its
 * process group is ended then). */
const STOP_GRACE_MS = 2500;

/** The connector of one session of an ACP agent whose command and args are resolved (the scripted
 * test backend runs its fake agent with it too); `stateDir`: a folder of Tether's own for the files
 * its launch names. */
export function acpConnector(launch: Omit<AcpAgent, "builtIn">, stateDir: string, request: SessionRequest): Connector {
  let bridge: SessionBridge | undefined;
  // Until connect(): nothing calls (the agent's MCP client starts with the agent).
  let route = (_connection: number, _message: string): void => undefined;
  return {
    label: { displayName: launch.displayName, command: path.basename(launch.command) },
    stopGraceMs: STOP_GRACE_MS,
    async config(common, session): Promise<AgentConfig> {
      // Tether's tools reach the agent's MCP client through the bridge, behind this session's gate;
      // the agent is set by connect(), before the agent can start its MCP client.
      bridge = await SessionBridge.start((connection, message) => route(connection, message), session.log);
      const config: AgentConfig = {
        backend: "acp",
        ...common,
        env: { ...request.networkEnv, ...request.settings.environment, ...launch.env },
        agentName: launch.displayName,
        agentArgs: launch.args,
        bridge: bridgeCommand(bridge.server),
        stateDir,
        ...(launch.profile ? { profile: launch.profile } : {}),
        ...(launch.allowLocalTools ? { allowLocalTools: true } : {}),
        ...(request.replay ? { replay: true } : {}),
      };
      const wait = request.resume ? loadDelayMs(launch.profile, request.resume) : 0;
      if (wait > 0) {
        session.log(`${launch.displayName} cannot load a session in the minute it started: waiting ${Math.round(wait / 1000)} s`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      return config;
    },
    async connect(agent, session) {
      route = (connection, message) => session.run("serving Tether's tools to the agent", agent.onMcpMessage(connection, message));
      const launched = agent.launch(stringEnv(process.env));
      const cwd = request.mirror ?? request.root;
      session.log(`spawning ${launch.command} ${launched.args.join(" ")} in ${cwd}`);
      const refused = agentFolderProblem(launch.displayName, cwd, launched.refusedInCwd);
      if (refused) throw new Error(refused);
      if (launched.files.length > 0) {
        // The switches that close the agent must live where nobody else can change them.
        const problem = stateFolderProblem(stateDir);
        if (problem) throw new Error(`${launch.displayName} cannot be closed: its switches would live in ${stateDir}, and ${problem}. Tether does not start it.`);
      }
      writeLaunchFiles(launched.files);
      return StdioTransport.start({
        displayName: launch.displayName,
        logName: path.basename(launch.command),
        program: launch.command,
        args: launched.args,
        cwd,
        env: launched.env,
        log: session.log,
        problem: session.problem,
        processGroup: true,
      });
    },
    observe(event) {
      if (event.type === "sessionInit" && event.sessionId) sessionStarted(event.sessionId);
    },
    deliver(output) {
      if (output.type === "mcpReply") bridge?.reply(output);
    },
    async close() {
      await bridge?.close();
    },
  };
}

export const acpBackend: BackendModule<AcpAgent> = {
  agents(settings) {
    return acpAgents(settings.agents).map((agent) => ({
      name: agent.name,
      displayName: agent.displayName,
      ...(agent.builtIn ? {} : { userDefined: true }),
      backend: acpBackend,
      spec: agent,
    }));
  },

  async connector(entry: AgentEntry<AcpAgent>, request) {
    const { command, args } = resolveCommand(entry.spec);
    request.log(
      `starting ${entry.displayName} (${command} ${args.join(" ")}) in ${request.mirror ?? request.root}${request.mirror ? ` (mirror of ${request.root})` : ""}` +
        (request.resume ? ` (resume ${request.resume})` : ""),
    );
    return acpConnector({ ...entry.spec, command, args }, path.join(request.place.storageDir, "agents", entry.name), request);
  },

  history: { kind: "agent" },

  cli: {
    flags: {
      "agent-command": { type: "string", help: "run this ACP agent command (with --agent NAME, instead of its own; the known agent's switches still apply)" },
      "agent-arg": { type: "string", multiple: true, help: "an argument for --agent-command (replaces the agent's own)" },
      "agent-env": { type: "string", multiple: true, help: "K=V, environment for the agent" },
      "allow-local-tools": { type: "boolean", help: "run an agent that cannot be closed on a remote (--mirror) workspace" },
    },
    apply(values, setup) {
      applyCliFlags(values, setup);
    },
  },
};

/** --agent-command, --agent-arg, --agent-env and --allow-local-tools as a `tether.agents` entry
 * for the agent --agent names (or an unnamed one). */
function applyCliFlags(values: Record<string, unknown>, setup: CliSetup): void {
  const command = values["agent-command"] as string | undefined;
  const args = values["agent-arg"] as string[] | undefined;
  const envSpecs = values["agent-env"] as string[] | undefined;
  const allowLocalTools = values["allow-local-tools"] === true;
  const name = setup.agent ?? (command !== undefined ? "agent" : undefined);
  const known = name !== undefined ? acpAgents(setup.settings.agents).find((a) => a.name === name) : undefined;
  if (command === undefined && !known) {
    if (args?.length || envSpecs?.length) setup.usageError("--agent-arg and --agent-env are for an ACP agent (--agent or --agent-command).");
    return;
  }
  const env: Record<string, string> = {};
  for (const spec of envSpecs ?? []) {
    const at = spec.indexOf("=");
    if (at <= 0) setup.usageError(`--agent-env ${spec}: expected NAME=VALUE.`);
    env[spec.slice(0, at)] = spec.slice(at + 1);
  }
  const agentName = name ?? "agent";
  const base = known ?? { name: agentName, displayName: agentName === "agent" ? "ACP agent" : agentName, command: "", args: [], env: {} };
  // An unnamed agent whose command is a known one's (…/codex-acp) gets that agent's switches.
  const profile = known?.profile ?? (command !== undefined ? profileFor(agentName, { command }) : undefined);
  const entry: AcpAgent = {
    ...base,
    builtIn: false,
    ...(command !== undefined ? { command, args: args ?? [] } : { args: [...base.args, ...(args ?? [])] }),
    env: { ...base.env, ...env },
    ...(profile ? { profile } : {}),
    ...(allowLocalTools || known?.allowLocalTools ? { allowLocalTools: true } : {}),
  };
  try {
    resolveCommand(entry);
  } catch (error) {
    setup.usageError((error as Error).message);
  }
  setup.settings.agents = {
    ...setup.settings.agents,
    [agentName]: {
      command: entry.command,
      args: entry.args,
      env: entry.env,
      displayName: entry.displayName,
      ...(entry.profile ? { profile: entry.profile } : {}),
      ...(entry.allowLocalTools ? { allowLocalTools: true } : {}),
    },
  };
  setup.agent = agentName;
}
