// What the composer's @-mentions take from VS Code itself: the terminals' recent output (recorded
// from shell integration's executions as they run, since VS Code offers no way to read a terminal's
// buffer) and the Problems list (the workspace's diagnostics, from its language servers wherever
// they run); and the terminals and the Problems entry offered while a mention is typed.

import * as vscode from "vscode";
import type { IdeSources } from "../chat/compose";
import type { Problem } from "../chat/mentions";
import type { FileSuggestion } from "../contract/protocol";
import { cleanTerminalOutput } from "../remote/terminalText";

/** What is kept of each terminal's output: enough for the last lines a mention sends. */
const KEEP_CHARS = 64 * 1024;
/** How long a mention waits for a command still streaming its output into the record. */
const SETTLE_MS = 1500;

const SEVERITIES: Problem["severity"][] = ["error", "warning", "info", "hint"];

/** A terminal as a mention names it: its name, spaces as dashes (a mention ends at a space). */
export function terminalMentionName(name: string): string {
  return name.trim().replace(/\s+/g, "-");
}

export class IdeState implements IdeSources, vscode.Disposable {
  private readonly output = new Map<vscode.Terminal, string>();
  /** Executions whose output is still being read, per terminal. */
  private readonly reading = new Map<vscode.Terminal, Set<Promise<void>>>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.subscriptions.push(
      vscode.window.onDidStartTerminalShellExecution((e) => {
        const reads = this.reading.get(e.terminal) ?? new Set<Promise<void>>();
        this.reading.set(e.terminal, reads);
        const read = this.record(e.terminal, e.execution).finally(() => reads.delete(read));
        reads.add(read);
      }),
      vscode.window.onDidCloseTerminal((terminal) => {
        this.output.delete(terminal);
        this.reading.delete(terminal);
      }),
    );
  }

  /** The terminals the user sees (Tether's own hidden ones are not theirs to mention). */
  private terminals(): vscode.Terminal[] {
    return vscode.window.terminals.filter((t) => !("hideFromUser" in t.creationOptions && t.creationOptions.hideFromUser));
  }

  /** The terminal's recorded output, once the commands still streaming into it ended (or after
   * SETTLE_MS: a long-running one is sent as far as it got). */
  async terminalOutput(name: string): Promise<string | undefined> {
    const terminal = this.terminals().find((t) => terminalMentionName(t.name) === name || t.name === name);
    if (!terminal) return undefined;
    const pending = [...(this.reading.get(terminal) ?? [])];
    if (pending.length) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(pending), new Promise((resolve) => (timer = setTimeout(resolve, SETTLE_MS)))]);
      clearTimeout(timer);
    }
    return this.output.get(terminal) ?? "";
  }

  problems(): Problem[] {
    const problems: Problem[] = [];
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      for (const d of diagnostics) {
        problems.push({
          path: vscode.workspace.asRelativePath(uri, false),
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          severity: SEVERITIES[d.severity] ?? "error",
          message: d.message,
          ...(d.source ? { source: d.source } : {}),
        });
      }
    }
    return problems.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  }

  /** The terminals and the Problems list matching what is typed after `@`. */
  suggestions(query: string): FileSuggestion[] {
    const q = query.toLowerCase().replace(/^terminal:/, "");
    const out: FileSuggestion[] = this.terminals()
      .map((t) => terminalMentionName(t.name))
      .filter((name) => name.toLowerCase().includes(q) || "terminal".startsWith(q))
      .map((name) => ({ path: name, label: `terminal:${name}`, kind: "terminal", detail: "recent output" }));
    if ("problems".startsWith(query.toLowerCase())) {
      const count = this.problems().length;
      out.push({ path: "problems", label: "problems", kind: "problems", detail: `${count} in the Problems list` });
    }
    return out;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.output.clear();
    this.reading.clear();
  }

  private async record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    this.append(terminal, `$ ${execution.commandLine.value}\n`);
    let streamed = false;
    try {
      for await (const data of execution.read()) {
        streamed ||= data.length > 0;
        this.append(terminal, cleanTerminalOutput(data));
      }
    } catch {
      // The terminal closed while it ran: what came is kept.
    }
    // VS Code streams an execution's output only from when the extension hears of its start: a
    // command that prints at once can finish first. Said, so the model does not read "no output".
    if (!streamed) this.append(terminal, "(no output reached Tether: VS Code streams a command's output only from when extensions hear of its start)\n");
  }

  private append(terminal: vscode.Terminal, text: string): void {
    const kept = (this.output.get(terminal) ?? "") + text;
    this.output.set(terminal, kept.length > KEEP_CHARS ? kept.slice(-KEEP_CHARS) : kept);
  }
}
