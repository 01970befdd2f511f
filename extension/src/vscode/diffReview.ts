// Reviewing a proposed edit in VS Code's own diff editor: the original on the left (read-only,
// `tether-original:`), the proposal on the right as an editable document of an in-memory file
// system (`tether-proposed:`; no "file" in the scheme names, because the VS Code server rewrites
// "file" inside when-clauses). One tab per request. Accept answers allow with what the user left on
// the right (as userContent when it differs from the proposal); Reject, or closing the tab, denies.

import * as path from "node:path";
import * as vscode from "vscode";

export const ORIGINAL_SCHEME = "tether-original";
export const PROPOSED_SCHEME = "tether-proposed";

export interface ReviewAnswer {
  decision: "allow" | "deny";
  reason?: string;
  userContent?: string;
}

interface Review {
  requestId: string;
  filePath: string;
  original: string;
  proposed: string;
  left: vscode.Uri;
  right: vscode.Uri;
  answer: (answer: ReviewAnswer) => void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The right side's storage: an in-memory file per review, editable and saved by autosave. */
class ProposedFileSystem implements vscode.FileSystemProvider {
  readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(uri.path);
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.data.length };
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions("proposals are single files");
  }
  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(uri.path);
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(uri.path)) throw vscode.FileSystemError.NoPermissions("only open proposals can be saved");
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions("proposals cannot be renamed");
  }
}

export class DiffReviews implements vscode.Disposable {
  private readonly reviews = new Map<string, Review>();
  private readonly proposedFs = new ProposedFileSystem();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: (message: string) => void) {
    this.disposables.push(
      vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, this.proposedFs, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, {
        provideTextDocumentContent: (uri) => this.byPath(uri.path, "left")?.original ?? "",
      }),
      // Closing the review tab is a rejection.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          const input = tab.input;
          if (input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSED_SCHEME) {
            const review = this.byPath(input.modified.path, "right");
            if (review) this.finish(review, { decision: "deny", reason: "The user closed the review without accepting the change." });
          }
        }
      }),
    );
  }

  has(requestId: string): boolean {
    return this.reviews.has(requestId);
  }

  /** Open (or focus) the diff for a request. `answer` is called once, with the user's decision. */
  async open(
    requestId: string,
    review: { path: string; original: string | null; proposed: string },
    answer: (answer: ReviewAnswer) => void,
  ): Promise<void> {
    let entry = this.reviews.get(requestId);
    if (!entry) {
      const base = path.posix.basename(review.path.replace(/\\/g, "/")) || "file";
      const key = `/${encodeURIComponent(requestId)}/${base}`;
      entry = {
        requestId,
        filePath: review.path,
        original: review.original ?? "",
        proposed: review.proposed,
        left: vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: key }),
        right: vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: key }),
        answer,
      };
      this.proposedFs.files.set(key, { data: encoder.encode(review.proposed), mtime: Date.now() });
      this.reviews.set(requestId, entry);
    }
    const title = `${path.posix.basename(entry.filePath.replace(/\\/g, "/"))} (${entry.original ? "proposed edit" : "new file"}) — Tether`;
    await vscode.commands.executeCommand("vscode.diff", entry.left, entry.right, title, { preview: false });
  }

  /** Accept: the request of `uri` (an editor title button), else of the active diff editor. */
  async accept(uri?: vscode.Uri): Promise<boolean> {
    const review = this.target(uri);
    if (!review) return false;
    const content = this.currentText(review);
    this.finish(review, content === review.proposed ? { decision: "allow" } : { decision: "allow", userContent: content });
    await this.closeTab(review);
    return true;
  }

  async reject(uri?: vscode.Uri, reason?: string): Promise<boolean> {
    const review = this.target(uri);
    if (!review) return false;
    this.finish(review, { decision: "deny", ...(reason ? { reason } : {}) });
    await this.closeTab(review);
    return true;
  }

  /** The user answered on the card: what is in the review editor (if open) goes with an allow. */
  async answeredElsewhere(requestId: string, decision: "allow" | "always" | "deny"): Promise<string | undefined> {
    const review = this.reviews.get(requestId);
    if (!review) return undefined;
    const content = this.currentText(review);
    this.reviews.delete(requestId);
    await this.closeTab(review);
    this.proposedFs.delete(review.right);
    return decision !== "deny" && content !== review.proposed ? content : undefined;
  }

  /** The request was withdrawn (interrupt, session end): close its tab without answering. */
  async cancel(requestId: string): Promise<void> {
    const review = this.reviews.get(requestId);
    if (!review) return;
    this.reviews.delete(requestId);
    await this.closeTab(review);
    this.proposedFs.delete(review.right);
  }

  dispose(): void {
    for (const review of [...this.reviews.values()]) this.finish(review, { decision: "deny", reason: "The review was closed." });
    for (const d of this.disposables) d.dispose();
  }

  private currentText(review: Review): string {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.right.toString());
    if (doc) return doc.getText();
    const stored = this.proposedFs.files.get(review.right.path);
    return stored ? decoder.decode(stored.data) : review.proposed;
  }

  private finish(review: Review, answer: ReviewAnswer): void {
    if (!this.reviews.delete(review.requestId)) return;
    this.log(`review ${review.requestId}: ${answer.decision}${answer.userContent !== undefined ? " (user-modified)" : ""}`);
    review.answer(answer);
    this.proposedFs.delete(review.right);
  }

  private target(uri?: vscode.Uri): Review | undefined {
    if (uri && uri.scheme === PROPOSED_SCHEME) return this.byPath(uri.path, "right");
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSED_SCHEME) {
      return this.byPath(input.modified.path, "right");
    }
    // One review open: the command palette or keybinding means that one.
    return this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined;
  }

  private byPath(p: string, side: "left" | "right"): Review | undefined {
    for (const review of this.reviews.values()) if ((side === "left" ? review.left : review.right).path === p) return review;
    return undefined;
  }

  private async closeTab(review: Review): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    const mine = tabs.filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === review.right.toString());
    // Saved first, so closing does not ask about unsaved changes.
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.right.toString());
    if (doc?.isDirty) {
      this.proposedFs.files.set(review.right.path, { data: encoder.encode(doc.getText()), mtime: Date.now() });
      await doc.save().then(undefined, () => undefined);
    }
    if (mine.length) await vscode.window.tabGroups.close(mine).then(undefined, () => undefined);
  }
}
