// The project's agent context for a session (CLAUDE.md, .claude/ settings, agents, commands): read
// through the host before a session starts, copied into the mirror for a remote folder, and
// watched: when it changes, a running session restarts with resume to pick it up (after the turn
// when one is running). A resumed CLI keeps its first system prompt (measured with 2.1.330: a new
// initialize's appendSystemPrompt is ignored on --resume), so changed memory goes with the next
// prompt instead. No vscode import.

import type { TetherHost } from "../core/host";
import type { AgentFile, RemoteConfig } from "../generated/core";
import { agentFiles, contextFingerprint, memoryPrompt, readProjectContext, syncMirror } from "../remote/context";
import { projectCommands, type ProjectCommand } from "./projectCommands";

/** What a session needs to know about the project before it starts. */
export interface ProjectSetup {
  /** The CLI's cwd for a remote folder. */
  mirror?: string;
  /** The project's memory files, for the system prompt. */
  memory?: string;
  agentFiles?: AgentFile[];
  remote?: RemoteConfig;
}

/** Where the project is. */
export interface ProjectSource {
  host: TetherHost;
  root: string;
  /** A remote folder: the mirror to sync into, and what to tell the model about the remote. */
  remote?: { mirror: string; facts(): Promise<RemoteConfig> };
}

/** The session as the sync sees it. */
export interface RestartableSession {
  readonly running: boolean;
  readonly busy: boolean;
  /** Stop and start again, resuming the same conversation. */
  restart(when: string): Promise<void>;
}

const REMOVED_MEMORY = "(The project's CLAUDE.md files were removed: there are no project instructions now.)";

export class ContextSync {
  private source: ProjectSource | undefined;
  /** The fingerprint of the context the running session was started with. */
  private seen: string | undefined;
  /** The memory the session's system prompt holds (unknown for one resumed from history). */
  private memoryInPrompt: { text: string | undefined } | undefined;
  /** Changed memory for the next prompt. */
  private reminder: string | undefined;
  /** The context changed during a turn: restart once it is over. */
  private restartAfterTurn = false;
  /** The project's own slash commands, as last read. */
  private commandList: ProjectCommand[] = [];

  constructor(
    private readonly session: RestartableSession,
    private readonly log: (message: string) => void,
  ) {}

  /** Before a session starts. `resuming`: it continues an earlier conversation. */
  async prepare(source: ProjectSource, resuming: boolean): Promise<ProjectSetup> {
    this.source = source;
    const context = await readProjectContext(source.host, source.root);
    this.seen = contextFingerprint(context);
    this.commandList = projectCommands(context.files);
    const memory = memoryPrompt(context, source.root);
    if (resuming && this.memoryInPrompt && memory !== this.memoryInPrompt.text) {
      this.reminder = memory ?? REMOVED_MEMORY;
    } else if (!resuming) {
      this.memoryInPrompt = { text: memory };
    }
    const agents = agentFiles(context);
    const setup: ProjectSetup = { ...(memory ? { memory } : {}), ...(agents.length ? { agentFiles: agents } : {}) };
    if (!source.remote) return setup;
    const changed = await syncMirror(source.remote.mirror, context);
    if (changed.length) this.log(`mirror ${source.remote.mirror}: synced ${changed.join(", ")}`);
    return { mirror: source.remote.mirror, ...setup, remote: await source.remote.facts() };
  }

  /** The project the session was last prepared for. */
  get project(): ProjectSource | undefined {
    return this.source;
  }

  /** The project's slash commands (`.claude/commands`), read from the workspace. */
  get commands(): readonly ProjectCommand[] {
    return this.commandList;
  }

  /** The changed memory for the next prompt, once. */
  takeReminder(): string | undefined {
    const reminder = this.reminder;
    this.reminder = undefined;
    return reminder;
  }

  /** A new session, or one resumed from history: what its prompt holds is not known. */
  forget(): void {
    this.memoryInPrompt = undefined;
    this.reminder = undefined;
  }

  /** A context file changed (the watcher, debounced). */
  async changed(): Promise<void> {
    const source = this.source;
    if (!source || !this.session.running) return;
    const context = await readProjectContext(source.host, source.root);
    if (contextFingerprint(context) === this.seen) return;
    this.commandList = projectCommands(context.files);
    if (this.session.busy) {
      this.restartAfterTurn = true;
      this.log("project context changed during a turn: restarting the session when it ends");
      return;
    }
    await this.session.restart("now");
  }

  /** A turn ended: a restart that waited for it happens now. */
  async turnEnded(): Promise<void> {
    if (!this.restartAfterTurn) return;
    this.restartAfterTurn = false;
    await this.session.restart("after the turn");
  }
}
