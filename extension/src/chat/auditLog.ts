// The audit log: one JSONL file per session (its checkpoint key), on this machine in Tether's own
// storage, as DESIGN.md allows Tether's metadata: every tool call Tether runs, every permission
// decision and who made it, every file written, every rule saved or removed — paths, decisions,
// sizes and hashes, never a file's contents (the core makes the records). Appends are queued, so
// records keep their order and a slow disk holds up nothing. No vscode import.

import { promises as fsp } from "node:fs";
import * as path from "node:path";
import type { AuditRecord } from "../generated/core";

/** What the log says of the session when it opens its file. */
export interface AuditSessionInfo {
  agent: string;
  /** The workspace root (in the host's namespace). */
  root: string;
}

export class AuditLog {
  private tail: Promise<void> = Promise.resolve();
  private readonly opened = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly log: (message: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The session's file. */
  pathFor(key: string): string {
    return path.join(this.dir, `${key.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`);
  }

  /** Append `record` (with the time) to the session's file; the first line of a session started
   * in this window says which agent and workspace it is. */
  append(key: string, record: AuditRecord, session: AuditSessionInfo): void {
    const time = this.now().toISOString();
    const lines: string[] = [];
    if (!this.opened.has(key)) {
      this.opened.add(key);
      lines.push(JSON.stringify({ time, kind: "session", agent: session.agent, root: session.root }));
    }
    lines.push(JSON.stringify({ time, ...record }));
    const file = this.pathFor(key);
    this.tail = this.tail
      .then(async () => {
        await fsp.mkdir(this.dir, { recursive: true });
        await fsp.appendFile(file, `${lines.join("\n")}\n`, "utf8");
      })
      .catch((error: unknown) => this.log(`audit log ${file}: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Settles once every record appended so far is on disk. */
  flushed(): Promise<void> {
    return this.tail;
  }

  /** The session's records, parsed (an export, a test). */
  async read(key: string): Promise<Record<string, unknown>[]> {
    await this.flushed();
    let text: string;
    try {
      text = await fsp.readFile(this.pathFor(key), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return text
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
