// The host side of the MCP bridge: a small server on a private local endpoint that the bridge
// processes connect to. Each connection must first show the token; then every MCP JSON-RPC line
// it sends goes to the handler (concurrently, as over stdio) and each answer is written back as
// one line. A wrong token is refused, a connection that dies takes nothing else with it, and
// close() ends everything and removes the endpoint.

import { createHash, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { serveNdjson } from "../node/ndjson";
import { createEndpoint, randomHex, type BridgeEndpoint } from "./endpoint";
import { answerLine, BRIDGE_ENDPOINT_ENV, BRIDGE_TOKEN_ENV, MAX_HELLO_BYTES, parseHello, readFirstLine } from "./protocol";

/** One authenticated bridge process. */
export interface BridgeConnection {
  /** 1, 2, … in the order they connected. */
  readonly id: number;
  /** The server its hello named (`--server NAME`), if any. */
  readonly server?: string;
  /** Write a line to the bridge (a server-to-client MCP notification). */
  send(line: string): void;
}

export interface BridgeHandler {
  /** One MCP JSON-RPC message in; the response, or undefined for a notification. */
  handle(message: string, connection: BridgeConnection): Promise<string | undefined>;
}

export interface BridgeServerOptions {
  handler: BridgeHandler;
  log?: (message: string) => void;
  /** How long a connection may take to show its token. */
  helloTimeoutMs?: number;
  /** POSIX: where the private socket directory is made (default: the OS temp folder). */
  parentDir?: string;
}

const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

export class BridgeServer {
  /** The token a bridge must show: 256 random bits. */
  readonly token = randomHex(32);
  private readonly sockets = new Set<net.Socket>();
  private readonly connections = new Map<number, BridgeConnection>();
  private nextId = 1;
  private closed = false;
  private connectionPath: string | undefined;
  /** A folder made for the connection file where the endpoint has none (Windows). */
  private ownDirectory: string | undefined;

  private constructor(
    private readonly server: net.Server,
    private readonly endpoint: BridgeEndpoint,
    private readonly options: BridgeServerOptions,
  ) {}

  static async start(options: BridgeServerOptions): Promise<BridgeServer> {
    const endpoint = createEndpoint(process.platform, options.parentDir);
    // allowHalfOpen: a bridge whose MCP client closed stdin still gets its pending answers.
    const server = net.createServer({ allowHalfOpen: true });
    const bridge = new BridgeServer(server, endpoint, options);
    server.on("connection", (socket) => bridge.accept(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(endpoint.address, () => {
          server.removeListener("error", reject);
          resolve();
        });
      });
    } catch (error) {
      endpoint.dispose();
      throw error;
    }
    server.on("error", (error) => bridge.log(`server error: ${error.message}`));
    return bridge;
  }

  /** The socket path (POSIX) or pipe name (Windows). */
  get address(): string {
    return this.endpoint.address;
  }

  /** The environment a bridge process needs (the `env` of an ACP `session/new` stdio server). */
  get env(): Record<string, string> {
    return { [BRIDGE_ENDPOINT_ENV]: this.endpoint.address, [BRIDGE_TOKEN_ENV]: this.token };
  }

  /**
   * A file holding the address and the token (`{endpoint, token}`), readable by this user only,
   * for an agent whose MCP config would otherwise put the token on a command line (Claude Code's
   * `--mcp-config`): the bridge is started with `--connection FILE` instead. Removed by close().
   */
  connectionFile(): string {
    if (this.connectionPath) return this.connectionPath;
    let directory = this.endpoint.directory;
    if (!directory) {
      directory = mkdtempSync(path.join(tmpdir(), "tether-"));
      this.ownDirectory = directory;
    }
    const file = path.join(directory, "connection.json");
    writeFileSync(file, JSON.stringify({ endpoint: this.endpoint.address, token: this.token }), { mode: 0o600 });
    this.connectionPath = file;
    return file;
  }

  /** Authenticated connections now open. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Send a line to every authenticated bridge (e.g. notifications/tools/list_changed). */
  broadcast(line: string): void {
    for (const connection of this.connections.values()) connection.send(line);
  }

  /** Stop listening, drop every connection, remove the endpoint. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await stopped;
    this.endpoint.dispose();
    if (this.ownDirectory) rmSync(this.ownDirectory, { recursive: true, force: true });
  }

  private log(message: string): void {
    this.options.log?.(`mcp bridge: ${message}`);
  }

  private accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    // A peer that dies mid-write resets the socket: that ends this connection only.
    socket.on("error", (error) => this.log(`connection error: ${error.message}`));
    const timer = setTimeout(() => {
      this.log("a connection did not authenticate in time");
      socket.destroy();
    }, this.options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS);
    readFirstLine(socket, MAX_HELLO_BYTES).then(
      ({ line, rest }) => {
        clearTimeout(timer);
        const hello = parseHello(line);
        if (!this.tokenMatches(hello?.token)) {
          this.log("refused a connection with a wrong token");
          socket.end(answerLine({ ok: false, error: "wrong token" }));
          setTimeout(() => socket.destroy(), 1000).unref();
          return;
        }
        socket.write(answerLine({ ok: true }));
        void this.serve(socket, rest, hello?.server);
      },
      (error: Error) => {
        clearTimeout(timer);
        this.log(`dropped a connection before it authenticated: ${error.message}`);
        socket.destroy();
      },
    );
  }

  private tokenMatches(token: string | undefined): boolean {
    if (token === undefined) return false;
    // Equal-length digests, compared in constant time.
    const digest = (s: string): Buffer => createHash("sha256").update(s).digest();
    return timingSafeEqual(digest(token), digest(this.token));
  }

  private async serve(socket: net.Socket, rest: Buffer, server: string | undefined): Promise<void> {
    const id = this.nextId++;
    const write = (data: string): void => {
      if (!socket.destroyed && socket.writable) socket.write(data);
    };
    const connection: BridgeConnection = { id, ...(server !== undefined ? { server } : {}), send: (line) => write(line.endsWith("\n") ? line : line + "\n") };
    this.connections.set(id, connection);
    const handler = this.options.handler;
    async function* input(): AsyncGenerator<Buffer> {
      if (rest.length > 0) yield rest;
      yield* chunksOf(socket);
    }
    try {
      await serveNdjson(
        { handle: (message) => handler.handle(message, connection) },
        { input: input(), output: { write }, log: (message) => this.log(`connection ${id}: ${message}`) },
      );
      // The bridge ended its side and every answer is written: end ours.
      if (!socket.destroyed) socket.end();
    } catch (error) {
      this.log(`connection ${id} ended: ${(error as Error).message}`);
      socket.destroy();
    } finally {
      this.connections.delete(id);
    }
  }
}

/**
 * The chunks a socket receives until it ends. Not `for await (… of socket)`: that destroys the
 * socket once the reading side ends, and the answers still to be written would be lost.
 */
async function* chunksOf(socket: net.Socket): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  socket.on("data", (chunk: Buffer) => {
    queue.push(chunk);
    notify();
  });
  socket.on("end", () => {
    ended = true;
    notify();
  });
  socket.on("close", () => {
    ended = true;
    notify();
  });
  socket.on("error", (error) => {
    failure = error;
    notify();
  });
  socket.resume();
  for (;;) {
    const chunk = queue.shift();
    if (chunk) {
      yield chunk;
      continue;
    }
    if (failure) throw failure;
    if (ended) return;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}
