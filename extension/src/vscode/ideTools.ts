// The IDE tools in VS Code: the `ide` and `vscode` MCP servers (ide/tools.ts) answered with the
// editor's own language features — vscode.languages.getDiagnostics and the vscode.execute*Provider
// commands — so on a remote workspace the answers come from the language servers running there.
// Served to every agent of the window through one private bridge endpoint (a Unix socket or named
// pipe with a token, never a TCP port): each agent starts `dist/tether-mcp-bridge.js` once per
// server name, as a stdio server, and the bridge's hello says which one it stands for.

import * as vscode from "vscode";
import type { McpServerEntry } from "../generated/core";
import type { ProjectSource } from "../chat/contextSync";
import { containedPaths } from "../ide/containment";
import { ideBridgeHandler, ideServerEntries } from "../ide/servers";
import { IdeToolsServer, type DiagnosticInfo, type FileLocation, type LanguagePort, type Position, type SymbolInfo } from "../ide/tools";
import { BridgeServer } from "../mcpBridge/server";

/** How long getDiagnostics waits for a file's language server to report once it is opened. */
const DIAGNOSTICS_WAIT_MS = 15_000;
const QUIET_MS = 2500;

export class IdeTools implements vscode.Disposable {
  private bridge: Promise<BridgeServer> | undefined;
  private server: Promise<IdeToolsServer> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: () => Promise<ProjectSource>,
    private readonly log: (message: string) => void,
  ) {}

  /** The MCP servers an agent of this window gets besides Tether's own: the IDE tools' two. */
  async servers(): Promise<McpServerEntry[]> {
    this.bridge ??= BridgeServer.start({
      handler: ideBridgeHandler(() => this.toolsServer()),
      log: this.log,
    });
    const bridge = await this.bridge;
    // Told where to connect by a private file: Claude Code takes its MCP servers on its command
    // line, where the bridge's token must not be.
    const env: Record<string, string> = {};
    if (process.versions["electron"]) env["ELECTRON_RUN_AS_NODE"] = "1";
    const script = vscode.Uri.joinPath(this.extensionUri, "dist", "tether-mcp-bridge.js").fsPath;
    return ideServerEntries({ command: process.execPath, script, connectionFile: bridge.connectionFile(), env });
  }

  /** Made at the first call; a failure (no folder yet) is tried again at the next. */
  private toolsServer(): Promise<IdeToolsServer> {
    if (this.server) return this.server;
    const server = this.source().then(({ host, root, remote }) => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (!folder) throw new Error("no workspace folder");
      return new IdeToolsServer(new VscodeLanguage(folder), containedPaths(host, root, remote?.mirror));
    });
    server.catch(() => (this.server = undefined));
    this.server = server;
    return server;
  }

  dispose(): void {
    void this.bridge?.then((b) => b.close());
  }
}

/** The editor's language features on workspace paths (the folder's own URIs: a remote's too). */
export class VscodeLanguage implements LanguagePort {
  constructor(private readonly folder: vscode.Uri) {}

  async diagnostics(file?: string): Promise<{ path: string; diagnostics: DiagnosticInfo[] }[]> {
    if (file === undefined) {
      return vscode.languages
        .getDiagnostics()
        .filter(([uri, list]) => list.length > 0 && this.inFolder(uri))
        .map(([uri, list]) => ({ path: this.pathOf(uri), diagnostics: list.map(diagnosticInfo) }));
    }
    const uri = this.uriOf(file);
    // A language server reports on the files that are open: open it (not shown) and wait for
    // its first report when it has none yet.
    await vscode.workspace.openTextDocument(uri);
    if (vscode.languages.getDiagnostics(uri).length === 0) await diagnosticsSettle(uri, DIAGNOSTICS_WAIT_MS);
    return [{ path: file, diagnostics: vscode.languages.getDiagnostics(uri).map(diagnosticInfo) }];
  }

  async definition(file: string, at: Position): Promise<FileLocation[]> {
    const found = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>("vscode.executeDefinitionProvider", this.uriOf(file), position(at));
    return (found ?? []).map((l) => ("targetUri" in l ? this.location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : this.location(l.uri, l.range)));
  }

  async references(file: string, at: Position): Promise<FileLocation[]> {
    const found = await vscode.commands.executeCommand<vscode.Location[] | undefined>("vscode.executeReferenceProvider", this.uriOf(file), position(at));
    return (found ?? []).map((l) => this.location(l.uri, l.range));
  }

  async hover(file: string, at: Position): Promise<string[]> {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[] | undefined>("vscode.executeHoverProvider", this.uriOf(file), position(at));
    return (hovers ?? []).flatMap((h) => h.contents.map((c) => (typeof c === "string" ? c : "value" in c ? c.value : String(c)))).filter((t) => t.trim() !== "");
  }

  async documentSymbols(file: string): Promise<SymbolInfo[]> {
    const uri = this.uriOf(file);
    const found = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>("vscode.executeDocumentSymbolProvider", uri);
    const out: SymbolInfo[] = [];
    const walk = (symbol: vscode.DocumentSymbol | vscode.SymbolInformation, container?: string): void => {
      if ("location" in symbol) {
        out.push({ name: symbol.name, kind: vscode.SymbolKind[symbol.kind], location: this.location(symbol.location.uri, symbol.location.range), ...(symbol.containerName ? { container: symbol.containerName } : {}) });
        return;
      }
      out.push({ name: symbol.name, kind: vscode.SymbolKind[symbol.kind], location: this.location(uri, symbol.selectionRange), ...(container ? { container } : {}) });
      for (const child of symbol.children) walk(child, symbol.name);
    };
    for (const symbol of found ?? []) walk(symbol);
    return out;
  }

  async workspaceSymbols(query: string): Promise<SymbolInfo[]> {
    const found = await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", query);
    return (found ?? []).map((s) => ({ name: s.name, kind: vscode.SymbolKind[s.kind], location: this.location(s.location.uri, s.location.range), ...(s.containerName ? { container: s.containerName } : {}) }));
  }

  async open(file: string, lines?: { startLine: number; endLine?: number }): Promise<void> {
    const selection = lines ? new vscode.Range(lines.startLine - 1, 0, (lines.endLine ?? lines.startLine) - 1, 0) : undefined;
    await vscode.window.showTextDocument(this.uriOf(file), { preview: false, preserveFocus: true, ...(selection ? { selection } : {}) });
  }

  private uriOf(file: string): vscode.Uri {
    return this.folder.scheme === "file" ? vscode.Uri.file(file) : this.folder.with({ path: file });
  }

  private inFolder(uri: vscode.Uri): boolean {
    if (uri.scheme !== this.folder.scheme || uri.authority !== this.folder.authority) return false;
    const base = this.folder.path.replace(/\/$/, "");
    return uri.path === base || uri.path.startsWith(base + "/");
  }

  /** A workspace path for a URI of the folder's kind; a library elsewhere keeps its own form. */
  private pathOf(uri: vscode.Uri): string {
    if (uri.scheme === this.folder.scheme && uri.authority === this.folder.authority) return uri.scheme === "file" ? uri.fsPath : uri.path;
    return uri.scheme === "file" ? uri.fsPath : uri.toString();
  }

  private location(uri: vscode.Uri, range: vscode.Range): FileLocation {
    return {
      path: this.pathOf(uri),
      range: { start: { line: range.start.line + 1, character: range.start.character + 1 }, end: { line: range.end.line + 1, character: range.end.character + 1 } },
    };
  }
}

const SEVERITIES = ["Error", "Warning", "Information", "Hint"] as const;

function diagnosticInfo(d: vscode.Diagnostic): DiagnosticInfo {
  const code = typeof d.code === "object" ? d.code.value : d.code;
  return {
    message: d.message,
    severity: SEVERITIES[d.severity] ?? "Error",
    range: { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
    ...(d.source ? { source: d.source } : {}),
    ...(code !== undefined ? { code: String(code) } : {}),
  };
}

function position(at: Position): vscode.Position {
  return new vscode.Position(at.line - 1, at.character - 1);
}

/** Resolves once `uri` has diagnostics, or once its language server has been quiet for
 * `QUIET_MS` after reporting (a syntax pass reports nothing before the semantic one), or after `ms`. */
function diagnosticsSettle(uri: vscode.Uri, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let quiet: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timer);
      clearTimeout(quiet);
      listener.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const listener = vscode.languages.onDidChangeDiagnostics((e) => {
      if (!e.uris.some((u) => u.toString() === uri.toString())) return;
      if (vscode.languages.getDiagnostics(uri).length > 0) return done();
      clearTimeout(quiet);
      quiet = setTimeout(done, QUIET_MS);
    });
  });
}
