// The Claude Code backend's module: the `claude` CLI over stream-json, started in the workspace's
// folder (or its mirror) with the project's instructions and subagents, Tether's tool settings and
// the user's environment. Its past sessions are the CLI's transcripts (history.ts).

import * as os from "node:os";
import * as path from "node:path";
import { AGENT_PROGRAMS, type AgentConfig } from "../../generated/core";
import { StdioTransport, stringEnv } from "../../session/transport";
import { findProgram } from "../../session/program";
import type { BackendModule } from "../backend";
import { forkPoint } from "./fork";
import { listSessions, projectDir, transcriptToEntries } from "./history";
import { promises as fsp } from "node:fs";
import { API_KEY_SECRET, claudeSetup } from "./setup";

/** The CLI as the core describes it (crate/src/claude/mod.rs). */
const PROGRAM = AGENT_PROGRAMS.claude;

/** After its input is closed, how long the CLI gets to finish and exit before it is killed. */
const STOP_GRACE_MS = 5000;

/** The Claude Code binary: `explicit`, else $TETHER_CLAUDE_PATH, PATH and the usual places. */
export function findClaude(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  return findProgram("claude", explicit, env);
}

export const claudeBackend: BackendModule<null> = {
  agents: () => [{ name: "claude", displayName: PROGRAM.displayName, chatName: "Claude", backend: claudeBackend, spec: null }],

  async connector(entry, request) {
    const { settings } = request;
    const program = findClaude(settings.claudePath || undefined);
    // An API key the user gave on the first run (SecretStorage), unless the environment has one.
    const apiKey = settings.environment["ANTHROPIC_API_KEY"] ? undefined : await request.place.secrets.get(API_KEY_SECRET);
    request.log(
      `starting Claude Code in ${request.mirror ?? request.root}${request.mirror ? ` (mirror of ${request.root})` : ""}` +
        (request.resume ? ` (${request.fork ? "fork" : "resume"} ${request.resume}${request.fork?.resumeAt ? ` at ${request.fork.resumeAt}` : ""})` : ""),
    );
    return {
      label: { displayName: entry.displayName, command: PROGRAM.command },
      stopGraceMs: STOP_GRACE_MS,
      async config(common): Promise<AgentConfig> {
        return {
          backend: "claude",
          ...common,
          env: { ...request.networkEnv, ...(apiKey ? { ANTHROPIC_API_KEY: apiKey } : {}), ...settings.environment },
          // A local folder's CLI reads the CLAUDE.md files itself (it reads project settings there).
          ...(request.memory && request.mirror ? { extraSystemPrompt: request.memory } : {}),
          ...(request.pluginDirs?.length ? { pluginDirs: request.pluginDirs } : {}),
          ...(request.outputStyle ? { outputStyle: request.outputStyle } : {}),
          ...(request.agentFiles?.length ? { agentFiles: request.agentFiles } : {}),
          allowedTools: settings.allowedTools,
          disallowedTools: settings.disallowedTools,
          ...(request.resume && request.fork ? { forkSession: true, ...(request.fork.resumeAt ? { resumeSessionAt: request.fork.resumeAt } : {}) } : {}),
        };
      },
      async connect(agent, session) {
        const launch = agent.launch(stringEnv(process.env));
        const cwd = request.mirror ?? request.root;
        session.log(`spawning ${program} ${launch.args.join(" ")} in ${cwd}`);
        return StdioTransport.start({
          displayName: entry.displayName,
          logName: PROGRAM.command,
          program,
          args: launch.args,
          cwd,
          env: launch.env,
          log: session.log,
          problem: session.problem,
          processGroup: false,
        });
      },
    };
  },

  // Claude Code on a local folder reads user, project and local settings as it does without
  // Tether (LaunchConfig::local: no --strict-mcp-config).
  readsProjectMcpLocally: true,
  setup: claudeSetup((explicit) => findClaude(explicit)),

  history: {
    kind: "files",
    list: (cwd) => listSessions(projectDir(os.homedir(), cwd)),
    // The transcript read here; a session that left none resumes with an empty chat.
    entries: async (cwd, id) => transcriptToEntries(await fsp.readFile(transcriptPath(cwd, id), "utf8").catch(() => "")),
    remove: (cwd, id) => fsp.rm(transcriptPath(cwd, id), { force: true }),
  },

  forkAt: { point: (cwd, conversation, messageId) => forkPoint(cwd, conversation, messageId) },

  cli: {
    flags: { claude: { type: "string", help: "the claude binary (default: $TETHER_CLAUDE_PATH, PATH, usual places)" } },
    apply(values, setup) {
      if (typeof values["claude"] === "string") setup.settings.claudePath = values["claude"];
    },
  },
};

/** The transcript of session `id` (an id is the CLI's UUID: nothing that could leave the folder). */
function transcriptPath(cwd: string, id: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`not a session id: ${JSON.stringify(id)}`);
  return path.join(projectDir(os.homedir(), cwd), `${id}.jsonl`);
}
