// The IDE tools Tether gives the model, as two MCP servers: the workspace's diagnostics under
// `ide` (named and shaped as the official extension's `mcp__ide__getDiagnostics`), and the
// language servers' definitions, references, hovers and symbols, and opening a file for the user,
// under `vscode` (why two: IDE_TOOLS_BY_SERVER). No vscode import: the editor is reached through
// `LanguagePort` (vscode/ideTools.ts), and every path the model gives meets `resolve`, the file
// tools' own containment (outside: refused).

import { IDE_SERVERS } from "../generated/core";

/** A place in a file: 1-based line and column, as the Read tool numbers lines. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface FileLocation {
  /** A workspace path (or, for a place outside the workspace such as a library, its own path). */
  path: string;
  range: Range;
}

export interface DiagnosticInfo {
  message: string;
  severity: "Error" | "Warning" | "Information" | "Hint";
  /** 0-based, as the official extension reports them. */
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  source?: string;
  code?: string;
}

export interface SymbolInfo {
  name: string;
  kind: string;
  location: FileLocation;
  container?: string;
}

/** What the editor answers, for workspace paths the tools have checked. */
export interface LanguagePort {
  /** Diagnostics of one file (waiting briefly for its language server), or of every file. */
  diagnostics(path?: string): Promise<{ path: string; diagnostics: DiagnosticInfo[] }[]>;
  definition(path: string, at: Position): Promise<FileLocation[]>;
  references(path: string, at: Position): Promise<FileLocation[]>;
  hover(path: string, at: Position): Promise<string[]>;
  documentSymbols(path: string): Promise<SymbolInfo[]>;
  workspaceSymbols(query: string): Promise<SymbolInfo[]>;
  open(path: string, range?: { startLine: number; endLine?: number }): Promise<void>;
}

/** A path from the model as a workspace path inside the session's folder; throws saying why not. */
export type Resolve = (path: string) => Promise<string>;

/** The IDE tools' MCP server names (declared in the core: `crate/src/mcp/mod.rs`). */
export type IdeServerName = (typeof IDE_SERVERS)[keyof typeof IDE_SERVERS];
export const IDE_SERVER_NAMES: readonly IdeServerName[] = [IDE_SERVERS.diagnostics, IDE_SERVERS.language];
const MCP_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

const POSITION_PROPS = {
  filePath: { type: "string", description: "The file's absolute path (or relative to the workspace root)." },
  line: { type: "integer", minimum: 1, description: "1-based line number, as the Read tool shows it." },
  character: { type: "integer", minimum: 1, description: "1-based column of the symbol on that line." },
};
const AT_POSITION = { type: "object", properties: POSITION_PROPS, required: ["filePath", "line", "character"], additionalProperties: false };
const ON_FILE = { type: "object", properties: { filePath: POSITION_PROPS.filePath }, required: ["filePath"], additionalProperties: false };

const DIAGNOSTICS_TOOLS = [
  {
    name: "getDiagnostics",
    description: "Get language diagnostics from VS Code",
    inputSchema: {
      type: "object",
      properties: { uri: { type: "string", description: "Optional file URI to get diagnostics for. If not provided, gets diagnostics for all files." } },
      additionalProperties: false,
    },
  },
];

const LANGUAGE_TOOLS = [
  { name: "getDefinition", description: "Go to definition: where the symbol at a position is defined, from VS Code's language servers.", inputSchema: AT_POSITION },
  { name: "findReferences", description: "Find references: every place the symbol at a position is used, from VS Code's language servers.", inputSchema: AT_POSITION },
  { name: "getHover", description: "The type and documentation VS Code shows on hover for the symbol at a position.", inputSchema: AT_POSITION },
  { name: "getDocumentSymbols", description: "The symbols (classes, functions, variables, …) a file declares, with their lines.", inputSchema: ON_FILE },
  {
    name: "getWorkspaceSymbols",
    description: "Symbols across the workspace whose names match a query, from VS Code's language servers.",
    inputSchema: { type: "object", properties: { query: { type: "string", description: "Part of the symbol's name." } }, required: ["query"], additionalProperties: false },
  },
  {
    name: "openFile",
    description: "Open a file in the user's editor, optionally at a line (or a range of lines), to show the user something.",
    inputSchema: {
      type: "object",
      properties: {
        filePath: POSITION_PROPS.filePath,
        startLine: { type: "integer", minimum: 1, description: "1-based line to reveal and select from." },
        endLine: { type: "integer", minimum: 1, description: "1-based last line of the selection." },
      },
      required: ["filePath"],
      additionalProperties: false,
    },
  },
];

type Tool = (typeof LANGUAGE_TOOLS)[number] | (typeof DIAGNOSTICS_TOOLS)[number];
const listed = (tools: Tool[]) => tools.map((tool) => ({ ...tool, _meta: { "anthropic/alwaysLoad": true } }));

/**
 * Which server lists which tools. Claude Code 2.1.330 special-cases a server named `ide` (the
 * official extension's): it offers the model only `mcp__ide__getDiagnostics` and
 * `mcp__ide__executeCode` of it and drops its other tools (measured with the real CLI against the
 * fake API: `mcp__ide__getDefinition` was not among the tools sent to the model and calling it
 * was "No such tool available"; the same tools under `vscode` were offered and ran; claude-agent-acp
 * 0.101.0, given both in `session/new`, offers the model the same). So only getDiagnostics stays
 * under `ide`, and the language tools are served under `vscode`.
 */
export const IDE_TOOLS_BY_SERVER: Record<IdeServerName, ReturnType<typeof listed>> = {
  [IDE_SERVERS.diagnostics]: listed(DIAGNOSTICS_TOOLS),
  [IDE_SERVERS.language]: listed(LANGUAGE_TOOLS),
};

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

/** The IDE tools' MCP servers: one JSON-RPC line in for one of them (by name), the answer out
 * (undefined for notifications). */
export class IdeToolsServer {
  constructor(
    private readonly port: LanguagePort,
    private readonly resolve: Resolve,
  ) {}

  async handle(line: string, server: string): Promise<string | undefined> {
    let message: { id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return rpcError(null, -32700, "Parse error");
    }
    if (!message || typeof message !== "object" || Array.isArray(message)) return rpcError(null, -32600, "Invalid Request");
    const { id, method } = message;
    const params = (message.params ?? {}) as Record<string, unknown>;
    // Notifications and responses get no answer.
    if (id === undefined || typeof method !== "string") return undefined;
    if (typeof id !== "string" && typeof id !== "number") return rpcError(null, -32600, "Invalid Request: the id must be a string or a number");
    const tools = IDE_SERVER_NAMES.includes(server as IdeServerName) ? IDE_TOOLS_BY_SERVER[server as IdeServerName] : undefined;
    if (!tools) return rpcError(id, -32601, `No IDE tools server named ${JSON.stringify(server)} (there are ${IDE_SERVER_NAMES.join(" and ")})`);
    switch (method) {
      case "initialize": {
        const asked = typeof params["protocolVersion"] === "string" ? params["protocolVersion"] : "";
        return rpcResult(id, {
          protocolVersion: MCP_VERSIONS.includes(asked) ? asked : MCP_VERSIONS[MCP_VERSIONS.length - 1],
          capabilities: { tools: {} },
          serverInfo: { name: server, title: server === IDE_SERVERS.diagnostics ? "Tether IDE diagnostics" : "Tether language features (VS Code)", version: "1" },
        });
      }
      case "ping":
        return rpcResult(id, {});
      case "tools/list":
        return rpcResult(id, { tools });
      case "tools/call": {
        const name = params["name"];
        const args = (params["arguments"] ?? {}) as Record<string, unknown>;
        if (typeof name !== "string" || !tools.some((t) => t.name === name)) return rpcError(id, -32602, `Unknown tool: ${String(name)}`);
        if (typeof args !== "object" || Array.isArray(args)) return rpcError(id, -32602, "Invalid params: arguments must be an object");
        return rpcResult(id, await this.call(name, args));
      }
      default:
        return rpcError(id, -32601, `Method not found: ${method}`);
    }
  }

  /** One tool call; a bad input or a refused path is the tool's error, told to the model. */
  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    try {
      return text(await this.run(name, args));
    } catch (error) {
      return { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  }

  private async run(name: string, args: Record<string, unknown>): Promise<string> {
    const { port } = this;
    switch (name) {
      case "getDiagnostics": {
        const uri = optionalString(args, "uri");
        const files = await port.diagnostics(uri === undefined ? undefined : await this.resolve(pathOfUri(uri)));
        return JSON.stringify(files.map((f) => ({ uri: fileUri(f.path), diagnostics: f.diagnostics })), null, 2);
      }
      case "getDefinition":
      case "findReferences": {
        const [path, at] = await this.position(args);
        const found = name === "getDefinition" ? await port.definition(path, at) : await port.references(path, at);
        if (found.length === 0) return `No ${name === "getDefinition" ? "definition" : "references"} found at ${path}:${at.line}:${at.character}.`;
        return found.map(describeLocation).join("\n");
      }
      case "getHover": {
        const [path, at] = await this.position(args);
        const hovers = await port.hover(path, at);
        return hovers.length ? hovers.join("\n\n") : `Nothing to show at ${path}:${at.line}:${at.character}.`;
      }
      case "getDocumentSymbols": {
        const symbols = await port.documentSymbols(await this.resolve(requiredString(args, "filePath")));
        return symbols.length ? symbols.map(describeSymbol).join("\n") : "No symbols found.";
      }
      case "getWorkspaceSymbols": {
        const symbols = await port.workspaceSymbols(requiredString(args, "query"));
        return symbols.length ? symbols.map(describeSymbol).join("\n") : "No symbols found.";
      }
      case "openFile": {
        const path = await this.resolve(requiredString(args, "filePath"));
        const startLine = optionalLine(args, "startLine");
        const endLine = optionalLine(args, "endLine");
        await port.open(path, startLine === undefined ? undefined : { startLine, ...(endLine !== undefined ? { endLine } : {}) });
        return `Opened ${path}${startLine !== undefined ? ` at line ${startLine}` : ""} for the user.`;
      }
      default:
        throw new Error(`Unknown tool: ${name}`);
    }
  }

  private async position(args: Record<string, unknown>): Promise<[string, Position]> {
    const path = await this.resolve(requiredString(args, "filePath"));
    const line = optionalLine(args, "line");
    const character = optionalLine(args, "character");
    if (line === undefined || character === undefined) throw new Error("line and character are required (1-based)");
    return [path, { line, character }];
  }
}

/** A `file://` URI (or a plain path) as a path; percent escapes decoded. */
export function pathOfUri(uri: string): string {
  const match = /^file:\/\/[^/]*(\/.*)$/i.exec(uri.trim());
  if (!match) return uri.trim();
  const path = decodeURIComponent(match[1]!);
  // file:///C:/x → C:/x
  return /^\/[A-Za-z]:/.test(path) ? path.slice(1) : path;
}

/** A workspace path as the `file://` URI the official extension reports. */
export function fileUri(path: string): string {
  const posix = path.replace(/\\/g, "/");
  const encoded = (posix.startsWith("/") ? "" : "/") + posix.split("/").map(encodeURIComponent).join("/");
  return "file://" + encoded.replace(/^\/([A-Za-z])%3A/, "/$1:");
}

function describeLocation(location: FileLocation): string {
  const { start, end } = location.range;
  return `${location.path}:${start.line}:${start.character}` + (end.line !== start.line ? `-${end.line}:${end.character}` : "");
}

function describeSymbol(symbol: SymbolInfo): string {
  return `${symbol.kind} ${symbol.name}${symbol.container ? ` (in ${symbol.container})` : ""} — ${describeLocation(symbol.location)}`;
}

function text(value: string): ToolResult {
  return { content: [{ type: "text", text: value }] };
}

function requiredString(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  if (typeof value !== "string" || value.trim() === "") throw new Error(`${key} is required (a string)`);
  return value;
}

function optionalString(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new Error(`${key} must be a string`);
  return value;
}

function optionalLine(args: Record<string, unknown>, key: string): number | undefined {
  const value = args[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new Error(`${key} must be a whole number of at least 1`);
  return value;
}

function rpcResult(id: string | number, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

function rpcError(id: string | number | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}
