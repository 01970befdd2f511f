// The rules view: every permission rule in effect for the session in front, grouped by where it
// lives (this session, the project's shared and local settings, the user's settings), each with a
// button that takes it out of its file (the rest of the file kept) and one that opens the file.
// A quick pick, as VS Code lists such things (trusted domains, extension accounts), reachable
// from the command palette and the permission card.

import * as vscode from "vscode";
import type { RuleEntry, RuleScope } from "../generated/core";

/** What the view needs of a session. */
export interface RulesSource {
  rules(): RuleEntry[];
  removeRule(entry: RuleEntry): Promise<void>;
}

/** Where a scope's file is, to open it; none for the session. */
export type RuleFileOpener = (scope: RuleScope) => PromiseLike<unknown> | undefined;

const SCOPES: { scope: RuleScope; title: string }[] = [
  { scope: "session", title: "This session" },
  { scope: "localSettings", title: "Project, just me · .claude/settings.local.json" },
  { scope: "projectSettings", title: "Project, shared · .claude/settings.json" },
  { scope: "userSettings", title: "All my projects · ~/.claude/settings.json" },
];

const BEHAVIORS: Record<RuleEntry["behavior"], string> = { allow: "allow", ask: "ask first", deny: "deny" };

interface RuleItem extends vscode.QuickPickItem {
  entry?: RuleEntry;
}

const REMOVE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Remove this rule" };
const OPEN: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("go-to-file"), tooltip: "Open the settings file" };

/** The items: a separator per scope that has rules, then its rules (deny, ask, allow). */
export function ruleItems(entries: RuleEntry[]): RuleItem[] {
  const items: RuleItem[] = [];
  const order: RuleEntry["behavior"][] = ["deny", "ask", "allow"];
  for (const { scope, title } of SCOPES) {
    const here = entries.filter((e) => e.scope === scope).sort((a, b) => order.indexOf(a.behavior) - order.indexOf(b.behavior));
    if (!here.length) continue;
    items.push({ label: title, kind: vscode.QuickPickItemKind.Separator });
    for (const entry of here) {
      items.push({
        label: entry.rule,
        description: BEHAVIORS[entry.behavior],
        entry,
        buttons: scope === "session" ? [REMOVE] : [OPEN, REMOVE],
      });
    }
  }
  return items;
}

/** Show the rules; stays open while the user removes rules, closes on Escape. */
export async function showRulesView(source: RulesSource, openFile: RuleFileOpener): Promise<void> {
  const pick = vscode.window.createQuickPick<RuleItem>();
  pick.title = "Tether: permission rules in effect";
  pick.placeholder = "Filter the rules; the trash button removes one from where it is saved";
  pick.matchOnDescription = true;
  pick.ignoreFocusOut = true;
  const refresh = (): void => {
    const items = ruleItems(source.rules());
    pick.items = items.length ? items : [{ label: "No permission rules are in effect", description: "“Always allow” on a permission card adds one" }];
  };
  refresh();
  pick.onDidTriggerItemButton(async ({ item, button }) => {
    const entry = item.entry;
    if (!entry) return;
    if (button === OPEN) {
      await openFile(entry.scope);
      return;
    }
    pick.busy = true;
    try {
      await source.removeRule(entry);
      refresh();
    } catch (error) {
      void vscode.window.showErrorMessage(`Tether: could not remove ${entry.rule}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      pick.busy = false;
    }
  });
  const closed = new Promise<void>((resolve) => pick.onDidHide(() => resolve()));
  pick.onDidAccept(() => pick.hide());
  pick.show();
  await closed;
  pick.dispose();
}
