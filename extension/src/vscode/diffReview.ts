// The review editor in VS Code: its own diff editor, the original on the left (read-only,
// `tether-original:`), the proposal on the right as an editable document of an in-memory file
// system (`tether-proposed:`; no "file" in the scheme names, because the VS Code server rewrites
// "file" inside when-clauses). The reviews' logic is chat/reviews.ts.

import * as vscode from "vscode";
import { ReviewBook, type Review, type ReviewEditor } from "../chat/reviews";

export const ORIGINAL_SCHEME = "tether-original";
export const PROPOSED_SCHEME = "tether-proposed";

/** A review's documents are named by the file (what the tab's breadcrumb shows) and carry the
 * review's key in their query (unique per request). */
const keyOf = (uri: vscode.Uri) => uri.query;

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
    const file = this.files.get(keyOf(uri));
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
    const file = this.files.get(keyOf(uri));
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(keyOf(uri))) throw vscode.FileSystemError.NoPermissions("only open proposals can be saved");
    this.files.set(keyOf(uri), { data: content, mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  delete(uri: vscode.Uri): void {
    this.files.delete(keyOf(uri));
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions("proposals cannot be renamed");
  }
}

const named = (scheme: string, review: Review) =>
  vscode.Uri.from({ scheme, path: `/${review.filePath.split(/[\\/]/).pop() || "file"}`, query: review.key });
const right = (review: Review) => named(PROPOSED_SCHEME, review);
const left = (review: Review) => named(ORIGINAL_SCHEME, review);

function isReviewTab(input: unknown): input is vscode.TabInputTextDiff {
  return input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSED_SCHEME;
}

class DiffEditor implements ReviewEditor {
  readonly proposedFs = new ProposedFileSystem();

  store(review: Review): void {
    this.proposedFs.files.set(review.key, { data: encoder.encode(review.proposed), mtime: Date.now() });
  }

  remove(review: Review): void {
    this.proposedFs.files.delete(review.key);
  }

  async show(review: Review): Promise<void> {
    await vscode.commands.executeCommand("vscode.diff", left(review), right(review), review.title, { preview: false });
  }

  currentText(review: Review): string {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === right(review).toString());
    if (doc) return doc.getText();
    const stored = this.proposedFs.files.get(review.key);
    return stored ? decoder.decode(stored.data) : review.proposed;
  }

  async close(review: Review): Promise<void> {
    const uri = right(review).toString();
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    const mine = tabs.filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === uri);
    // Saved first, so closing does not ask about unsaved changes.
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    if (doc?.isDirty) {
      this.proposedFs.files.set(review.key, { data: encoder.encode(doc.getText()), mtime: Date.now() });
      await doc.save().then(undefined, () => undefined);
    }
    if (mine.length) await vscode.window.tabGroups.close(mine).then(undefined, () => undefined);
  }

  activeKey(): string | undefined {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return isReviewTab(input) ? keyOf(input.modified) : undefined;
  }
}

/** The reviews, with VS Code's diff editor and the registrations it needs. */
export class DiffReviews implements vscode.Disposable {
  readonly book: ReviewBook;
  private readonly disposables: vscode.Disposable[];

  constructor(log: (message: string) => void) {
    const editor = new DiffEditor();
    this.book = new ReviewBook(editor, log);
    this.disposables = [
      vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, editor.proposedFs, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, {
        provideTextDocumentContent: (uri) => this.book.byKey(keyOf(uri))?.original ?? "",
      }),
      // Closing the review tab is a rejection.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) if (isReviewTab(tab.input)) this.book.closed(keyOf(tab.input.modified));
      }),
    ];
  }

  /** The editor title buttons pass the right side's URI; the palette and keybindings pass none. */
  accept(uri?: vscode.Uri): Promise<boolean> {
    return this.book.accept(uri?.scheme === PROPOSED_SCHEME ? keyOf(uri) : undefined);
  }

  reject(uri?: vscode.Uri, reason?: string): Promise<boolean> {
    return this.book.reject(uri?.scheme === PROPOSED_SCHEME ? keyOf(uri) : undefined, reason);
  }

  dispose(): void {
    this.book.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
