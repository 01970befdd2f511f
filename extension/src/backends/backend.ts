// What a backend module is: everything the TypeScript side knows about one kind of agent — the
// agents of its kind (its entries in the registry), how the user's settings and tether-cli's flags
// map onto its part of the generated session config, how a session of it launches or connects,
// and where its past sessions are. The driver, the chat, the commands and tether-cli take a module
// and never name one (extension/test/seam.test.ts checks it). No vscode import: tether-cli runs
// the same modules.

import type { TetherHost } from "../core/host";
import type { ChatEntry, HistorySession } from "../contract/protocol";
import type { AgentConfig, AgentOutput, AuthMethodInfo, CheckpointsConfig, CommonConfig, FolderConfig, McpServerEntry, RemoteConfig, UiEvent } from "../generated/core";
import type { SecretStore } from "./openclaw/deviceKey";
import type { Transport } from "../session/transport";
import type { TetherAgent } from "../session/agent";
import type { TetherSettings } from "../settings";

/** One agent of the registry: what the picker lists, `tether.agent` and `tether-cli --agent` name. */
export interface AgentEntry<Spec = unknown> {
  name: string;
  displayName: string;
  /** How the chat's sentences call it, when not its display name ("Claude"). */
  chatName?: string;
  /** Added by the user (`tether.agents`), not known to Tether. */
  userDefined?: boolean;
  /** The module that runs it. */
  backend: BackendModule<Spec>;
  /** What the module needs to start this agent (an ACP agent's command, say). */
  spec: Spec;
}

/** Where Tether keeps its own things for a backend: files, and secrets (VS Code's SecretStorage,
 * a file for tether-cli). */
export interface LaunchPlace {
  storageDir: string;
  secrets: SecretStore;
}

/** Everything opening a session takes, whatever the backend. */
export interface SessionRequest {
  host: TetherHost;
  /** The workspace root, in the host's namespace. */
  root: string;
  /** The agent's local cwd, whose paths map onto root (a remote workspace's mirror). */
  mirror?: string;
  remote?: RemoteConfig;
  /** The project's instructions (CLAUDE.md and the like), for agents that take them as a prompt. */
  memory?: string;
  /** The project's own subagents (`.claude/agents/*.md`). */
  agentFiles?: { name: string; text: string }[];
  settings: TetherSettings;
  place: LaunchPlace;
  /** Resuming from history: show the conversation the agent replays. */
  replay?: boolean;
  resume?: string;
  /** Where the session keeps its checkpoints (on the workspace side); none: no checkpoints. */
  checkpoints?: CheckpointsConfig;
  /** With `resume`: start a new session from it, up to the agent's message `resumeAt`. */
  fork?: { resumeAt?: string };
  /** The project's MCP servers Tether runs for this session (projectMcp/): their entries go to
   * the agent, and they stop with the session. */
  projectServers?: { entries: McpServerEntry[]; close(): Promise<void> };
  /** More MCP servers for agents that take them (the IDE tools), beside the project's. */
  mcpServers?: McpServerEntry[];
  /** The network's environment for the agent's process (proxy, CA), under the user's own. */
  networkEnv?: Record<string, string>;
  log(message: string): void;
  /** The workspace's other folders, offered to the agent as additional directories. */
  additionalFolders?: FolderConfig[];
  /** Plugin folders holding a remote project's mirrored skills and output styles (Claude Code). */
  pluginDirs?: string[];
  /** The output style the project chose, as the CLI knows it (a remote folder; Claude Code). */
  outputStyle?: string;
  /** The texts of the project's settings files as read before the start (`.claude/settings.json`,
   * `.claude/settings.local.json`): the agent is asked only for the hook events they configure. */
  projectSettings?: string[];
}

/** What the driver lends a connector while the session runs. */
export interface ConnectorSession {
  log(message: string): void;
  /** A notice in the chat (a problem the agent's program printed, say). */
  problem(message: string): void;
  /** Hand the outputs of an agent call to the session (the call is tracked: the session waits
   * for it before it reports the agent's exit). */
  run(what: string, outputs: Promise<AgentOutput[]>): void;
}

/** How one session of a backend runs, made fresh for each session by `BackendModule.connector`. */
export interface Connector {
  /** For people ("Gemini CLI"), and for log lines (`gemini`). */
  label: { displayName: string; command: string };
  /** How long the agent gets to exit once asked to finish. */
  stopGraceMs: number;
  /** The whole session config: the common part plus the backend's own. May wait (a gateway's
   * device keys, an agent that cannot load a session yet). */
  config(common: CommonConfig, session: ConnectorSession): Promise<AgentConfig>;
  /** Start the program or open the connection for `agent`. */
  connect(agent: TetherAgent, session: ConnectorSession): Promise<Transport>;
  /** Sees every UI event of the session (before the chat does). */
  observe?(event: UiEvent): void;
  /** An output that is neither a message for the transport nor a UI event (a socket operation, an
   * MCP reply for the bridge). */
  deliver?(output: AgentOutput): void;
  /** Release what the connector holds (a bridge's socket) once the session is over. */
  close?(): Promise<void>;
}

/** Where a backend's past sessions are: files Tether reads (Claude Code's transcripts, by the
 * agent's cwd), or the agent's own list (it replays a session when loading it). */
export type SessionHistory =
  | {
      kind: "files";
      list(cwd: string): Promise<HistorySession[]>;
      entries(cwd: string, id: string): Promise<ChatEntry[]>;
      /** Delete the past session `id` (its file). */
      remove(cwd: string, id: string): Promise<void>;
    }
  | { kind: "agent" };

/** One of a backend's command-line flags for tether-cli. */
export interface CliFlag {
  type: "string" | "boolean";
  multiple?: boolean;
  /** `--name VALUE  what it does`, for the usage text. */
  help: string;
}

/** What tether-cli's flags set: the settings and the place the session request carries. */
export interface CliSetup {
  /** The agent --agent names (undefined: the default). */
  agent: string | undefined;
  settings: TetherSettings;
  place: LaunchPlace;
  /** The session to continue (a flag of the backend's own may name it). */
  resume?: string;
  /** Report a usage error (exits). */
  usageError(message: string): never;
}

/** A command of the backend's own, for VS Code's command palette, through a small port. */
export interface BackendCommand {
  id: string;
  run(api: BackendCommandApi): Promise<void> | void;
}

export interface BackendCommandApi {
  secrets: SecretStore;
  /** Ask the user for a secret; undefined when they cancel. */
  askSecret(title: string, prompt: string): Promise<string | undefined>;
  inform(message: string): void;
  /** One of the backend's commands on the running session; false when none takes it. */
  sessionCommand(name: string, args?: unknown): boolean;
}

/** What keeps an agent from starting on a first run, and the remedies the extension offers. */
export type SetupProblem =
  | {
      kind: "missing";
      message: string;
      /** The same program bundled with another installed extension, ready to use. */
      bundled?: string;
      /** An install command (run with progress). */
      install?: { command: string; args: string[] };
      /** The `tether.*` setting that names the program's path. */
      pathSetting: string;
    }
  | {
      kind: "loggedOut";
      message: string;
      /** The login, run in a terminal. */
      login: { command: string; args: string[] };
      /** Where an API key the user gives is kept (SecretStorage); the module reads it at launch. */
      apiKeySecret: string;
    };

/** A start refused because the agent is not logged in: the chat shows the message with `remedies`
 * as buttons (each an `authenticate` method the first run answers), and Retry. */
export class NotLoggedInError extends Error {
  constructor(
    message: string,
    /** What to do, in a sentence. */
    readonly hint: string,
    readonly remedies: AuthMethodInfo[],
  ) {
    super(message);
  }
}

export interface BackendSetup {
  /** What is missing before a session can start, if anything. */
  check(context: { settings: TetherSettings; extensionDirs: string[]; secrets: SecretStore }): Promise<SetupProblem | undefined>;
}

export interface BackendModule<Spec = unknown> {
  /** First-run checks (a missing program, no login), where the backend has them. */
  setup?: BackendSetup;
  /** Its agents under the user's settings. */
  agents(settings: TetherSettings): AgentEntry<Spec>[];
  /** The connector one session of `entry` runs with; throws a clear message when the settings
   * do not let it start. */
  connector(entry: AgentEntry<Spec>, request: SessionRequest): Promise<Connector>;
  history: SessionHistory;
  /** Forking a conversation at one of the chat's user messages (absent: the agent cannot). */
  forkAt?: {
    /** Where a fork of `conversation` resumes to end just before the user message `messageId`
     * (none: the message began it). `cwd`: where the agent ran. Throws, saying why, when it cannot. */
    point(cwd: string, conversation: string, messageId: string): Promise<{ resumeAt?: string }>;
  };
  /** Its tether-cli flags and how they map onto the settings. */
  cli?: { flags: Record<string, CliFlag>; apply(values: Record<string, unknown>, setup: CliSetup): Promise<void> | void };
  /** Its VS Code commands. */
  commands?: BackendCommand[];
  /** Origins the chat page may frame (a gateway's widget pages). */
  frameSources?(settings: TetherSettings): string[];
  /** On a local folder the agent reads the project's `.mcp.json` itself (and asks about its
   * servers), so Tether starts none of them there. */
  readsProjectMcpLocally?: boolean;
}
