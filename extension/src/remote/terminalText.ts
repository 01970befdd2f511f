// Text helpers for the terminal tiers, without vscode: the script a command runs as, POSIX
// quoting, and turning a terminal's byte stream back into a command's output.

import type { ExecRequest } from "../core/host";

/** 'text' for a POSIX shell, any character allowed. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The script a terminal runs for one request: its own cwd and environment, then the command.
 * A file instead of typed text: a multi-line command typed into a prompt meets continuation
 * prompts, history expansion and the shell's line editor. `pidFile` records the script's pid. */
export function commandScript(request: ExecRequest, pidFile?: string): string {
  const lines = ["#!/bin/sh"];
  if (pidFile) lines.push(`echo $$ > ${shellQuote(pidFile)}`);
  lines.push(`cd -- ${shellQuote(request.cwd)} || exit 1`);
  for (const [name, value] of request.env) {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) lines.push(`export ${name}=${shellQuote(value)}`);
  }
  // The command itself runs in bash like everywhere else in Tether (the core wraps it for bash).
  lines.push(`exec bash -c ${shellQuote(request.command)}`);
  return lines.join("\n") + "\n";
}

/* eslint-disable no-control-regex */
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const OTHER_ESCAPE = /\x1b[@-Z\\-_]/g;
/* eslint-enable no-control-regex */

/** A terminal's output as a command's: escape sequences (shell integration marks, colours,
 * cursor moves) removed and CRLF line ends back to LF. */
export function cleanTerminalOutput(raw: string): string {
  return raw.replace(OSC, "").replace(CSI, "").replace(OTHER_ESCAPE, "").replace(/\r\n/g, "\n").replace(/\r(?=\n)/g, "");
}

/** Keeps the first `cap` bytes (UTF-8) of a stream and whether more came. */
export class CappedText {
  private parts: string[] = [];
  private bytes = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(text: string): void {
    if (this.truncated) return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size <= this.cap) {
      this.parts.push(text);
      this.bytes += size;
      return;
    }
    const room = this.cap - this.bytes;
    // Cut at a character boundary at or below the cap.
    const cut = Buffer.from(text).subarray(0, room).toString("utf8").replace(/\uFFFD$/, "");
    this.parts.push(cut);
    this.bytes = this.cap;
    this.truncated = true;
  }

  text(): string {
    return this.parts.join("");
  }
}
