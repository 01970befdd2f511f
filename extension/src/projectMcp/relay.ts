// One project MCP server as the agent reaches it: a bridge endpoint of its own (the agent's MCP
// client starts dist/tether-mcp-bridge.js with its address and token), each line the agent sends
// written to the server process's stdin where the files are, each line the process writes sent
// back. The process gone, the endpoint closes, so the agent sees its server end.

import { BridgeServer, type BridgeConnection } from "../mcpBridge/server";
import type { StdioProcess } from "../node/stdioProcess";

export class ServerRelay {
  private connection: BridgeConnection | undefined;
  /** Lines the process wrote before the agent connected. */
  private waiting: string[] = [];
  private partial = "";

  private constructor(
    readonly name: string,
    readonly process: StdioProcess,
    private readonly log: (message: string) => void,
  ) {}

  /** The relay for `process`, listening on a new private endpoint. */
  static async start(name: string, process: StdioProcess, log: (message: string) => void): Promise<{ relay: ServerRelay; bridge: BridgeServer }> {
    let relay: ServerRelay | undefined;
    const bridge = await BridgeServer.start({
      handler: {
        handle: async (message, connection) => {
          relay?.fromAgent(message, connection);
          return undefined;
        },
      },
      log: (m) => log(`${name}: ${m}`),
    });
    relay = new ServerRelay(name, process, log);
    const started = relay;
    process.onStdout((chunk) => started.fromProcess(chunk));
    void process.exited.then(() => bridge.close());
    return { relay, bridge };
  }

  private fromAgent(line: string, connection: BridgeConnection): void {
    if (this.connection !== connection) {
      this.log(`project MCP server ${this.name}: the agent connected`);
      this.connection = connection;
      for (const waiting of this.waiting.splice(0)) connection.send(waiting);
    }
    this.process.write(line + "\n").catch((error: unknown) => this.log(`${this.name}: could not write to the server: ${error instanceof Error ? error.message : String(error)}`));
  }

  private fromProcess(chunk: string): void {
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      const trimmed = line.replace(/\r$/, "");
      if (!trimmed.trim()) continue;
      if (this.connection) this.connection.send(trimmed);
      else this.waiting.push(trimmed);
    }
  }
}
