// The audit log's commands: open the session's log in an editor, or export it to a file the user
// picks (a copy: the log itself keeps growing).

import { promises as fsp } from "node:fs";
import * as vscode from "vscode";
import type { AuditLog } from "../chat/auditLog";

export async function openAuditLog(audit: AuditLog, key: string): Promise<void> {
  await audit.flushed();
  const file = audit.pathFor(key);
  try {
    await fsp.access(file);
  } catch {
    void vscode.window.showInformationMessage("Tether: this session has no audit records yet (they start with its first tool call).");
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
}

export async function exportAuditLog(audit: AuditLog, key: string): Promise<void> {
  await audit.flushed();
  const target = await vscode.window.showSaveDialog({
    title: "Export the session's audit log",
    defaultUri: vscode.Uri.file(`tether-audit-${key}.jsonl`),
    filters: { "JSON Lines": ["jsonl"] },
  });
  if (!target) return;
  const text = await fsp.readFile(audit.pathFor(key)).catch(() => Buffer.from(""));
  await vscode.workspace.fs.writeFile(target, text);
  void vscode.window.showInformationMessage(`Tether: the audit log was exported to ${target.fsPath}.`);
}
