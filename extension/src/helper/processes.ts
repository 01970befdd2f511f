// Tether Remote's long-lived processes with a conversation on stdin/stdout (the project's stdio
// MCP servers): started here, next to the files; their stdout kept until the main extension reads
// it (a long poll, as for background commands), their stdin written in order. No vscode import.

import { startLocalProcess, type ProcessExit, type ProcessSpec, type StdioProcess } from "../node/stdioProcess";

/** What one read returns: the stdout written since the last read, and the exit once it came. */
export interface ProcessRead {
  stdout: string;
  exit: ProcessExit | null;
  stderrTail: string;
}

/** Past this much unread stdout the process is stopped: nobody is reading it. */
const MAX_UNREAD_BYTES = 16 * 1024 * 1024;

interface Entry {
  process: StdioProcess;
  unread: string;
  exit: ProcessExit | null;
  wake: (() => void) | undefined;
}

export class ProcessTable {
  private readonly entries = new Map<string, Entry>();
  private next = 0;

  async start(spec: ProcessSpec): Promise<string> {
    const process = await startLocalProcess(spec);
    const id = `proc-${++this.next}`;
    const entry: Entry = { process, unread: "", exit: null, wake: undefined };
    this.entries.set(id, entry);
    const wake = (): void => {
      entry.wake?.();
      entry.wake = undefined;
    };
    process.onStdout((chunk) => {
      entry.unread += chunk;
      if (entry.unread.length > MAX_UNREAD_BYTES) void process.kill();
      wake();
    });
    void process.exited.then((exit) => {
      entry.exit = exit;
      wake();
    });
    return id;
  }

  async write(id: string, data: string): Promise<void> {
    await this.entry(id).process.write(data);
  }

  /** Waits up to `waitMs` for stdout or the exit; an exited process is forgotten once read. */
  async read(id: string, waitMs: number): Promise<ProcessRead> {
    const entry = this.entry(id);
    if (!entry.unread && !entry.exit && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        entry.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const stdout = entry.unread;
    entry.unread = "";
    if (entry.exit && !stdout) this.entries.delete(id);
    return { stdout, exit: stdout ? null : entry.exit, stderrTail: entry.process.stderrTail() };
  }

  async kill(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    await entry.process.kill();
    return true;
  }

  dispose(): void {
    for (const entry of this.entries.values()) void entry.process.kill();
    this.entries.clear();
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) throw Object.assign(new Error(`no process ${id}`), { code: "ENOENT" });
    return entry;
  }
}
