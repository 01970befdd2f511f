// The two terminal tiers of the remote executor, for a remote without Tether Remote:
//   ShellIntegrationExecutor  hidden terminals with VS Code's shell integration: the command's
//                             output streams through execution.read(), its exit code comes with
//                             the end event
//   FileProtocolExecutor      hidden /bin/sh terminals that write a command's output and exit code
//                             to files on the remote; a file watcher wakes the waiting call (the
//                             seed's protocol polled every 300 ms)
// Both run each request as a script file written through vscode.workspace.fs (see
// terminalText.ts), in a private folder on the remote's /tmp. POSIX remotes only.

import * as vscode from "vscode";
import { hostError, type BackgroundStatus, type ExecOutput, type ExecRequest } from "../core/host";
import type { ExecutorTier, RemoteExecutor, RemoteFacts } from "./executor";
import { CappedText, cleanTerminalOutput, commandScript, shellQuote } from "./terminalText";

/** How long a new terminal may take to bring up shell integration (measured: 0.14–0.35 s). */
const SHELL_INTEGRATION_WAIT_MS = 5000;
/** After Ctrl+C on a timed-out command, how long before its terminal is thrown away instead. */
const INTERRUPT_GRACE_MS = 1000;
/** Terminals kept for concurrent foreground commands. */
const MAX_IDLE_TERMINALS = 4;
/** A lost watcher event costs at most this long (the watcher normally answers in ~5–10 ms). */
const FILE_SAFETY_CHECK_MS = 2000;
const TERMINAL_NAME = "Tether";

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Shared by both tiers: the remote scratch folder and script files. */
abstract class TerminalExecutorBase implements RemoteExecutor {
  abstract readonly tier: ExecutorTier;
  abstract readonly description: string;
  protected readonly scratch: vscode.Uri;
  private scratchReady: Promise<void> | undefined;
  private counter = 0;
  protected readonly idle: vscode.Terminal[] = [];
  protected readonly all = new Set<vscode.Terminal>();
  private ripgrepPresent: Promise<boolean> | undefined;

  constructor(protected readonly folder: vscode.Uri) {
    const unique = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.scratch = folder.with({ path: `/tmp/tether-${unique}` });
  }

  facts(): RemoteFacts {
    return {};
  }

  /** Called once the scratch folder exists (a watcher can only watch a folder that exists). */
  protected scratchCreated(): void {}

  protected nextName(): string {
    return `c${++this.counter}`;
  }

  protected file(name: string): vscode.Uri {
    return this.scratch.with({ path: `${this.scratch.path}/${name}` });
  }

  protected async writeScript(name: string, request: ExecRequest, pidFile?: string): Promise<string> {
    this.scratchReady ??= Promise.resolve(vscode.workspace.fs.createDirectory(this.scratch)).then(() => this.scratchCreated());
    await this.scratchReady;
    const script = this.file(`${name}.sh`);
    await vscode.workspace.fs.writeFile(script, Buffer.from(commandScript(request, pidFile)));
    return script.path;
  }

  protected async removeFiles(name: string, suffixes: string[]): Promise<void> {
    await Promise.all(
      suffixes.map((s) => Promise.resolve(vscode.workspace.fs.delete(this.file(`${name}${s}`))).catch(() => undefined)),
    );
  }

  protected release(terminal: vscode.Terminal): void {
    if (!this.all.has(terminal)) return;
    if (this.idle.length < MAX_IDLE_TERMINALS) this.idle.push(terminal);
    else this.discard(terminal);
  }

  protected discard(terminal: vscode.Terminal): void {
    this.all.delete(terminal);
    const i = this.idle.indexOf(terminal);
    if (i >= 0) this.idle.splice(i, 1);
    terminal.dispose();
  }

  abstract run(request: ExecRequest): Promise<ExecOutput>;
  abstract spawnBackground(request: ExecRequest): Promise<string>;
  abstract readBackground(id: string): Promise<BackgroundStatus>;
  abstract killBackground(id: string): Promise<boolean>;

  /** ripgrep when the remote has `rg` on PATH (asked once), else null. */
  async ripgrep(args: string[], cwd: string, timeoutMs: number): Promise<ExecOutput | null> {
    this.ripgrepPresent ??= this.run({ command: "command -v rg", cwd, env: [], timeoutMs: 10_000, maxOutputBytes: 4096 }).then(
      (out) => out.exitCode === 0,
      () => false,
    );
    if (!(await this.ripgrepPresent)) return null;
    const command = ["rg", ...args].map(shellQuote).join(" ");
    return this.run({ command, cwd, env: [], timeoutMs, maxOutputBytes: 256 * 1024 * 1024 });
  }

  dispose(): void {
    for (const terminal of this.all) terminal.dispose();
    this.all.clear();
    this.idle.length = 0;
    void Promise.resolve(vscode.workspace.fs.delete(this.scratch, { recursive: true })).catch(() => undefined);
  }
}

// ---------------------------------------------------------------- shell integration

interface StreamedBackground {
  terminal: vscode.Terminal;
  raw: string;
  running: boolean;
  exitCode: number | null;
  name: string;
}

export class ShellIntegrationExecutor extends TerminalExecutorBase {
  readonly tier = "shellIntegration";
  readonly description = "hidden terminals with shell integration (no Tether Remote on the remote)";
  private readonly background = new Map<string, StreamedBackground>();

  /** Resolves to an executor when a terminal on the remote brings up shell integration. */
  static async connect(folder: vscode.Uri): Promise<ShellIntegrationExecutor | undefined> {
    const executor = new ShellIntegrationExecutor(folder);
    const terminal = await executor.newTerminal().catch(() => undefined);
    if (!terminal) {
      executor.dispose();
      return undefined;
    }
    executor.release(terminal);
    return executor;
  }

  private async newTerminal(): Promise<vscode.Terminal> {
    const terminal = vscode.window.createTerminal({ name: TERMINAL_NAME, hideFromUser: true, isTransient: true, cwd: this.folder.path });
    this.all.add(terminal);
    if (terminal.shellIntegration) return terminal;
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), SHELL_INTEGRATION_WAIT_MS);
      const listener = vscode.window.onDidChangeTerminalShellIntegration((e) => {
        if (e.terminal === terminal) finish(true);
      });
      const closed = vscode.window.onDidCloseTerminal((t) => {
        if (t === terminal) finish(false);
      });
      function finish(ok: boolean) {
        clearTimeout(timer);
        listener.dispose();
        closed.dispose();
        resolve(ok);
      }
    });
    if (!ready || !terminal.shellIntegration) {
      this.discard(terminal);
      throw hostError("Unavailable", "the remote terminal did not bring up shell integration");
    }
    return terminal;
  }

  private async acquire(): Promise<vscode.Terminal> {
    return this.idle.pop() ?? (await this.newTerminal());
  }

  /** Start the script in the terminal; `onData` gets the raw stream; resolves with the exit code
   * (undefined when the shell did not report one). */
  private execute(
    terminal: vscode.Terminal,
    scriptPath: string,
    onData: (raw: string) => void,
  ): { ended: Promise<number | undefined> } {
    const integration = terminal.shellIntegration;
    if (!integration) throw hostError("Unavailable", "the remote terminal lost shell integration");
    const execution = integration.executeCommand(`sh ${shellQuote(scriptPath)}`);
    const ended = new Promise<number | undefined>((resolve) => {
      const listener = vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.execution !== execution) return;
        listener.dispose();
        closed.dispose();
        resolve(e.exitCode);
      });
      const closed = vscode.window.onDidCloseTerminal((t) => {
        if (t !== terminal) return;
        listener.dispose();
        closed.dispose();
        resolve(undefined);
      });
    });
    void (async () => {
      for await (const chunk of execution.read()) onData(chunk);
    })().catch(() => undefined);
    return { ended };
  }

  async run(request: ExecRequest): Promise<ExecOutput> {
    const name = this.nextName();
    const scriptPath = await this.writeScript(name, request);
    const terminal = await this.acquire();
    let raw = "";
    try {
      const { ended } = this.execute(terminal, scriptPath, (chunk) => (raw += chunk));
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        ended,
        new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(request.timeoutMs, 1)))),
      ]);
      clearTimeout(timer);
      if (code === "timeout") {
        timedOut = true;
        terminal.sendText("\x03", false);
        const stopped = await Promise.race([ended.then(() => true), delay(INTERRUPT_GRACE_MS).then(() => false)]);
        if (!stopped) this.discard(terminal);
      }
      const out = new CappedText(request.maxOutputBytes);
      out.push(cleanTerminalOutput(raw));
      return {
        stdout: out.text(),
        stderr: "",
        exitCode: timedOut || code === "timeout" ? null : (code ?? null),
        timedOut,
        truncated: out.truncated,
      };
    } finally {
      this.release(terminal);
      void this.removeFiles(name, [".sh"]);
    }
  }

  async spawnBackground(request: ExecRequest): Promise<string> {
    const name = this.nextName();
    const scriptPath = await this.writeScript(name, request);
    // A terminal of its own, thrown away with the process.
    const terminal = await this.newTerminal();
    const record: StreamedBackground = { terminal, raw: "", running: true, exitCode: null, name };
    const { ended } = this.execute(terminal, scriptPath, (chunk) => (record.raw += chunk));
    const lifetime = setTimeout(() => void this.killBackground(name), Math.max(request.timeoutMs, 1));
    void ended.then((code) => {
      clearTimeout(lifetime);
      record.running = false;
      record.exitCode = code ?? null;
      this.discard(terminal);
      void this.removeFiles(name, [".sh"]);
    });
    this.background.set(name, record);
    return name;
  }

  async readBackground(id: string): Promise<BackgroundStatus> {
    const record = this.background.get(id);
    if (!record) throw hostError("ENOENT", `no background process ${id}`);
    // An escape sequence cut by the chunk boundary waits for the rest.
    const lastEscape = record.raw.lastIndexOf("\x1b");
    const hold = record.running && lastEscape >= 0 && cleanTerminalOutput(record.raw.slice(lastEscape)).includes("\x1b");
    const ready = hold ? record.raw.slice(0, lastEscape) : record.raw;
    record.raw = record.raw.slice(ready.length);
    return { stdout: cleanTerminalOutput(ready), stderr: "", running: record.running, exitCode: record.exitCode };
  }

  async killBackground(id: string): Promise<boolean> {
    const record = this.background.get(id);
    if (!record) throw hostError("ENOENT", `no background process ${id}`);
    if (!record.running) return false;
    record.running = false;
    this.discard(record.terminal);
    return true;
  }
}

// ---------------------------------------------------------------- files + watcher

interface FileBackground {
  name: string;
  readBytes: number;
  readErrBytes: number;
  exitCode: number | null;
  running: boolean;
}

export class FileProtocolExecutor extends TerminalExecutorBase {
  readonly tier = "terminal";
  readonly description = "hidden terminals reporting through files, woken by a file watcher";
  private watcher: vscode.FileSystemWatcher | undefined;
  private readonly waiting = new Map<string, () => void>();
  private readonly background = new Map<string, FileBackground>();

  protected override scratchCreated(): void {
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.scratch, "*.exit"));
    const wake = (uri: vscode.Uri) => {
      const name = uri.path.slice(uri.path.lastIndexOf("/") + 1).replace(/\.exit$/, "");
      this.waiting.get(name)?.();
    };
    this.watcher.onDidCreate(wake);
    this.watcher.onDidChange(wake);
  }

  private acquire(): vscode.Terminal {
    const existing = this.idle.pop();
    if (existing) return existing;
    const terminal = vscode.window.createTerminal({
      name: TERMINAL_NAME,
      hideFromUser: true,
      isTransient: true,
      shellPath: "/bin/sh",
      cwd: this.folder.path,
    });
    this.all.add(terminal);
    return terminal;
  }

  /** The exit code once `<name>.exit` exists, or undefined when it does not (yet). */
  private async exitCode(name: string): Promise<number | undefined> {
    try {
      const text = Buffer.from(await vscode.workspace.fs.readFile(this.file(`${name}.exit`))).toString("utf8").trim();
      const code = Number.parseInt(text, 10);
      return Number.isNaN(code) ? undefined : code;
    } catch {
      return undefined;
    }
  }

  /** Resolves with the exit code when `<name>.exit` appears, or undefined after `timeoutMs`. */
  private async waitForExit(name: string, timeoutMs: number): Promise<number | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const code = await this.exitCode(name);
      if (code !== undefined) return code;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, FILE_SAFETY_CHECK_MS));
        this.waiting.set(name, done);
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.waiting.delete(name);
    }
  }

  private async readText(name: string, suffix: string): Promise<string> {
    try {
      return Buffer.from(await vscode.workspace.fs.readFile(this.file(`${name}${suffix}`))).toString("utf8");
    } catch {
      return "";
    }
  }

  private commandLine(name: string, scriptPath: string): string {
    const f = (s: string) => shellQuote(`${this.scratch.path}/${name}${s}`);
    // The exit file appears in one rename, so the watcher never sees it half-written.
    return `sh ${shellQuote(scriptPath)} >${f(".out")} 2>${f(".err")}; echo $? >${f(".code")}; mv ${f(".code")} ${f(".exit")}`;
  }

  async run(request: ExecRequest): Promise<ExecOutput> {
    const name = this.nextName();
    const scriptPath = await this.writeScript(name, request);
    const terminal = this.acquire();
    try {
      terminal.sendText(this.commandLine(name, scriptPath), true);
      let code = await this.waitForExit(name, Math.max(request.timeoutMs, 1));
      const timedOut = code === undefined;
      if (timedOut) {
        terminal.sendText("\x03", false);
        code = await this.waitForExit(name, INTERRUPT_GRACE_MS);
        if (code === undefined) this.discard(terminal);
      }
      const stdout = new CappedText(request.maxOutputBytes);
      const stderr = new CappedText(request.maxOutputBytes);
      stdout.push(await this.readText(name, ".out"));
      stderr.push(await this.readText(name, ".err"));
      return {
        stdout: stdout.text(),
        stderr: stderr.text(),
        exitCode: timedOut ? null : (code ?? null),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
      };
    } finally {
      this.release(terminal);
      void this.removeFiles(name, [".sh", ".out", ".err", ".exit"]);
    }
  }

  async spawnBackground(request: ExecRequest): Promise<string> {
    const name = this.nextName();
    const scriptPath = await this.writeScript(name, request, `${this.scratch.path}/${name}.pid`);
    const terminal = this.acquire();
    // setsid: the script leads its own process group, so a kill reaches everything it started.
    terminal.sendText(`(setsid ${this.commandLine(name, scriptPath)}) >/dev/null 2>&1 &`, true);
    this.release(terminal);
    const record: FileBackground = { name, readBytes: 0, readErrBytes: 0, exitCode: null, running: true };
    this.background.set(name, record);
    setTimeout(() => void this.killBackground(name).catch(() => undefined), Math.max(request.timeoutMs, 1));
    return name;
  }

  async readBackground(id: string): Promise<BackgroundStatus> {
    const record = this.background.get(id);
    if (!record) throw hostError("ENOENT", `no background process ${id}`);
    if (record.running) {
      const code = await this.exitCode(id);
      if (code !== undefined) {
        record.running = false;
        record.exitCode = code;
      }
    }
    const out = Buffer.from(await this.readText(id, ".out"));
    const err = Buffer.from(await this.readText(id, ".err"));
    const stdout = out.subarray(record.readBytes).toString("utf8");
    const stderr = err.subarray(record.readErrBytes).toString("utf8");
    record.readBytes = out.length;
    record.readErrBytes = err.length;
    return { stdout, stderr, running: record.running, exitCode: record.exitCode };
  }

  async killBackground(id: string): Promise<boolean> {
    const record = this.background.get(id);
    if (!record) throw hostError("ENOENT", `no background process ${id}`);
    if (!record.running) return false;
    const code = await this.exitCode(id);
    if (code !== undefined) {
      // Already gone: its process group id may belong to someone else by now.
      record.running = false;
      record.exitCode = code;
      return false;
    }
    const pid = Number.parseInt(await this.readText(id, ".pid"), 10);
    if (Number.isInteger(pid) && pid > 1) {
      const terminal = this.acquire();
      // The shell's builtin kill, on the script's process group only.
      terminal.sendText(`kill -s KILL -- -${pid} 2>/dev/null`, true);
      this.release(terminal);
    }
    record.running = false;
    return true;
  }

  override dispose(): void {
    this.watcher?.dispose();
    super.dispose();
  }
}
