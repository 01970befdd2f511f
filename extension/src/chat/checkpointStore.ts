// Where a chat session's checkpoints (the before-images of the files Tether changes) live: on the
// workspace side, through the session's host (a remote workspace's own file system), never on the
// laptop. `.tether/checkpoints/<key>/` in the workspace, the folder kept out of git and of searches
// by a `.gitignore` and an `.ignore` of `*`; an index maps each conversation to its folder, so a
// resumed conversation (after a reload) finds its checkpoints, and only the newest `keepSessions`
// folders stay. No vscode import.

import type { TetherHost } from "../core/host";
import type { CheckpointsConfig } from "../generated/core";

export interface CheckpointSettings {
  enabled: boolean;
  keepMessages: number;
  keepSessions: number;
}

interface IndexEntry {
  key: string;
  conversation?: string;
  updatedAt: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Which checkpoint folder a conversation uses (the index lives on the workspace side). */
export interface CheckpointIndex {
  keyFor(conversation: string): Promise<string | undefined>;
  note(key: string, conversation: string): Promise<void>;
}

/** A session's entry in the checkpoint index, noted once per folder key and conversation: the
 * agent's handshake comes at every turn (Claude Code's), and a note is a read and a write of the
 * index on the workspace (four round trips on a remote). A note that failed is tried again. */
export class CheckpointNotes {
  private noted: string | undefined;

  constructor(
    private readonly index: CheckpointIndex | undefined,
    private readonly log: (message: string) => void,
  ) {}

  note(key: string, conversation: string): void {
    const noted = `${key} ${conversation}`;
    if (!this.index || noted === this.noted) return;
    this.noted = noted;
    this.index.note(key, conversation).catch((e: unknown) => {
      if (this.noted === noted) this.noted = undefined;
      this.log(`checkpoints: ${e instanceof Error ? e.message : String(e)}`);
    });
  }
}

/** The folder that holds every session's checkpoints. */
export function checkpointsRoot(root: string): string {
  return `${root.replace(/[\\/]+$/, "")}/.tether/checkpoints`;
}

/** A fresh key for a session's checkpoint folder. */
export function newCheckpointKey(): string {
  return `s${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** The key the conversation `conversation` kept its checkpoints under, if any. */
export async function findCheckpointKey(host: TetherHost, root: string, conversation: string): Promise<string | undefined> {
  return (await readIndex(host, root)).find((e) => e.conversation === conversation)?.key;
}

/** The config the core gets for the session `key`. */
export function checkpointsConfig(root: string, key: string, keepMessages: number): CheckpointsConfig {
  return { dir: `${checkpointsRoot(root)}/${key}`, keepMessages };
}

/** The checkpoints' folder made ready: its `.gitignore` (the project's git ignores it), the index
 * with the session `key`, the oldest sessions beyond the retention removed. */
export async function prepareCheckpoints(host: TetherHost, root: string, key: string, settings: CheckpointSettings, conversation?: string): Promise<void> {
  const base = checkpointsRoot(root);
  const tether = base.slice(0, base.lastIndexOf("/"));
  await host.mkdir(base);
  // `.gitignore` keeps it out of git; `.ignore` out of ripgrep's (and so Glob's and Grep's) results
  // in a folder that is not a git repository.
  const ignore = encoder.encode("# Tether's checkpoints (before-images of the files it changed); not part of the project.\n*\n");
  await host.writeFile(`${tether}/.gitignore`, ignore);
  await host.writeFile(`${tether}/.ignore`, ignore);
  await noteSession(host, root, key, settings.keepSessions, conversation);
}

/** Record (or refresh) the session `key`, with its conversation once known; remove the oldest
 * sessions' folders beyond `keep`. */
export async function noteSession(host: TetherHost, root: string, key: string, keep: number, conversation?: string): Promise<void> {
  const all = await readIndex(host, root);
  const previous = all.find((e) => e.key === key);
  const index = all.filter((e) => e.key !== key);
  const known = conversation ?? previous?.conversation;
  index.push({ key, ...(known ? { conversation: known } : {}), updatedAt: Date.now() });
  index.sort((a, b) => a.updatedAt - b.updatedAt);
  const dropped = index.splice(0, Math.max(0, index.length - keep));
  const base = checkpointsRoot(root);
  for (const entry of dropped) await host.remove(`${base}/${entry.key}`, true).catch(() => undefined);
  await host.writeFile(`${base}/index.json`, encoder.encode(JSON.stringify({ sessions: index })));
}

async function readIndex(host: TetherHost, root: string): Promise<IndexEntry[]> {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(await host.readFile(`${checkpointsRoot(root)}/index.json`)));
    const sessions = (parsed as { sessions?: unknown }).sessions;
    if (!Array.isArray(sessions)) return [];
    return sessions.filter((e): e is IndexEntry => typeof e === "object" && e !== null && typeof (e as IndexEntry).key === "string" && /^[a-z0-9]+$/.test((e as IndexEntry).key));
  } catch {
    return [];
  }
}
