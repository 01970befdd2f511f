// The project's agent context for a session (CLAUDE.md, .claude/ settings, agents, commands): read
// through the host before a session starts, copied into the mirror for a remote folder, and
// watched: when it changes, a running session restarts with resume to pick it up (after the turn
// when one is running). A resumed CLI keeps its first system prompt (measured with 2.1.330: a new
// initialize's appendSystemPrompt is ignored on --resume), so changed memory goes with the next
// prompt instead. No vscode import.

import * as path from "node:path";
import type { TetherHost } from "../core/host";
import type { AgentFile, FolderConfig, RemoteConfig } from "../generated/core";
import {
  agentFiles,
  contextFingerprint,
  hasPluginParts,
  memoryPrompt,
  outputStyle,
  pluginName,
  readProjectContext,
  SETTINGS_FILES,
  syncMirror,
  type ProjectContext,
} from "../remote/context";
import { projectCommands, type ProjectCommand } from "./projectCommands";

/** What a session needs to know about the project before it starts. */
export interface ProjectSetup {
  /** The CLI's cwd for a remote folder. */
  mirror?: string;
  /** The project's memory files, for the system prompt (every folder's, on a remote). */
  memory?: string;
  agentFiles?: AgentFile[];
  remote?: RemoteConfig;
  /** The workspace's other folders, offered as additional directories. */
  additionalFolders?: FolderConfig[];
  /** A remote folder's mirrored skills and output styles, as plugin folders for the CLI. */
  pluginDirs?: string[];
  /** The output style the project's settings choose, as the CLI knows it (remote folders). */
  outputStyle?: string;
  /** The texts of the project's settings files, as read now (for the hook events to ask for). */
  projectSettings?: string[];
}

/** Where the project is. */
export interface ProjectSource {
  host: TetherHost;
  root: string;
  /** The workspace folder's name (the session's folder). */
  folder?: string;
  /** A remote folder: the mirror to sync into, and what to tell the model about the remote. */
  remote?: { mirror: string; facts(): Promise<RemoteConfig> };
  /** The workspace's other folders (reached through the same host), each with its mirror on a remote. */
  others?: FolderConfig[];
}

/** The session as the sync sees it. */
export interface RestartableSession {
  readonly running: boolean;
  readonly busy: boolean;
  /** Stop and start again, resuming the same conversation. */
  restart(when: string): Promise<void>;
}

function settingsTexts(context: ProjectContext): string[] {
  return SETTINGS_FILES.flatMap((rel) => {
    const bytes = context.files.get(rel);
    return bytes ? [Buffer.from(bytes).toString("utf8")] : [];
  });
}

const REMOVED_MEMORY = "(The project's CLAUDE.md files were removed: there are no project instructions now.)";

export class ContextSync {
  private source: ProjectSource | undefined;
  /** The fingerprint of the context the running session was started with, and its files. */
  private seen: string | undefined;
  private seenFiles: ReadonlyMap<string, Uint8Array> | undefined;
  /** The last bytes the session itself wrote to each project file (relative path). */
  private readonly ownWrites = new Map<string, Uint8Array>();
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
    this.seenFiles = context.files;
    this.ownWrites.clear();
    this.commandList = projectCommands(context.files);
    const memory = memoryPrompt(context, source.root);
    if (resuming && this.memoryInPrompt && memory !== this.memoryInPrompt.text) {
      this.reminder = memory ?? REMOVED_MEMORY;
    } else if (!resuming) {
      this.memoryInPrompt = { text: memory };
    }
    const agents = agentFiles(context);
    const others = source.others ?? [];
    const setup: ProjectSetup = {
      projectSettings: settingsTexts(context),
      ...(memory ? { memory } : {}),
      ...(agents.length ? { agentFiles: agents } : {}),
      ...(others.length ? { additionalFolders: others } : {}),
    };
    if (!source.remote) return setup;
    const pluginDirs: string[] = [];
    const mirrored = async (root: string, mirror: string, folderContext: ProjectContext): Promise<void> => {
      const changed = await syncMirror(mirror, folderContext, pluginName(root));
      if (changed.length) this.log(`mirror ${mirror}: synced ${changed.join(", ")}`);
      if (hasPluginParts(folderContext)) pluginDirs.push(path.join(mirror, ".claude"));
    };
    await mirrored(source.root, source.remote.mirror, context);
    // The other folders' context comes along: their skills, and their memory after the first's.
    const memories = memory ? [memory] : [];
    for (const other of others) {
      const otherContext = await readProjectContext(source.host, other.root);
      if (other.mirror) await mirrored(other.root, other.mirror, otherContext);
      const otherMemory = memoryPrompt(otherContext, other.root);
      if (otherMemory) memories.push(otherMemory);
    }
    const style = outputStyle(context, pluginName(source.root));
    return {
      mirror: source.remote.mirror,
      ...setup,
      ...(memories.length ? { memory: memories.join("\n\n") } : {}),
      ...(pluginDirs.length ? { pluginDirs } : {}),
      ...(style ? { outputStyle: style } : {}),
      remote: await source.remote.facts(),
    };
  }

  /**
   * Tether wrote the project's settings file `file` for this session (its gate saving or taking
   * out a rule, an MCP server's answer kept): when the watcher then sees the context changed by
   * such writes alone, there is nothing to restart for, since the session holds what it wrote.
   * (An agent's own edit of the file is no such write: it restarts the session as any change.)
   */
  noteWrite(file: string, text: string): void {
    const root = this.source?.root.replace(/\\/g, "/").replace(/\/+$/, "");
    const normalized = file.replace(/\\/g, "/");
    if (root === undefined || !normalized.startsWith(`${root}/`)) return;
    this.ownWrites.set(normalized.slice(root.length + 1), Buffer.from(text, "utf8"));
  }

  /** Whether every difference between `context` and what the session started with is a write of its own. */
  private onlyOwnWrites(context: ProjectContext): boolean {
    const before = this.seenFiles;
    if (!before) return false;
    for (const rel of new Set([...before.keys(), ...context.files.keys()])) {
      const was = before.get(rel);
      const now = context.files.get(rel);
      if (was && now && Buffer.compare(was, now) === 0) continue;
      const own = this.ownWrites.get(rel);
      if (!now || !own || Buffer.compare(own, now) !== 0) return false;
    }
    return true;
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
    const fingerprint = contextFingerprint(context);
    if (fingerprint === this.seen) return;
    if (this.onlyOwnWrites(context)) {
      if (source.remote) await syncMirror(source.remote.mirror, context, pluginName(source.root));
      this.seen = fingerprint;
      this.seenFiles = context.files;
      this.log("project context: changed by the session's own write (a saved rule, an MCP answer); no restart");
      return;
    }
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
