// The MCP bridge's own little protocol, spoken once at the start of each connection between
// `dist/tether-mcp-bridge.js` (the stdio MCP server an ACP agent spawns) and the extension host:
// the bridge sends a hello line with the token, the host answers ok (then MCP JSON-RPC lines flow
// both ways, untouched) or refuses and closes. Shared by both ends.

/** The environment variables that tell the bridge where to connect and with what token. The
 * token travels in the environment only, never on a command line (process listings show those). */
export const BRIDGE_ENDPOINT_ENV = "TETHER_BRIDGE_ENDPOINT";
export const BRIDGE_TOKEN_ENV = "TETHER_BRIDGE_TOKEN";

export const BRIDGE_PROTOCOL_VERSION = 1;

/** An unauthenticated peer may send at most this much before its hello line is complete. */
export const MAX_HELLO_BYTES = 1024;

export interface Hello {
  tetherBridge: number;
  token: string;
  /** Which of the host's MCP servers this bridge stands for, when one endpoint serves several
   * (the IDE tools' `ide` and `vscode`: `--server NAME`). */
  server?: string;
}

export type HelloAnswer = { tetherBridge: number; ok: true } | { tetherBridge: number; ok: false; error: string };

export function helloLine(token: string, server?: string): string {
  const hello: Hello = { tetherBridge: BRIDGE_PROTOCOL_VERSION, token, ...(server !== undefined ? { server } : {}) };
  return JSON.stringify(hello) + "\n";
}

export function answerLine(answer: { ok: true } | { ok: false; error: string }): string {
  return JSON.stringify({ tetherBridge: BRIDGE_PROTOCOL_VERSION, ...answer }) + "\n";
}

/** A hello line read, or undefined when the line is not one. */
export function parseHello(line: string): Hello | undefined {
  try {
    const hello = JSON.parse(line) as Partial<Hello>;
    if (hello.tetherBridge !== BRIDGE_PROTOCOL_VERSION || typeof hello.token !== "string") return undefined;
    if (hello.server !== undefined && typeof hello.server !== "string") return undefined;
    return { tetherBridge: hello.tetherBridge, token: hello.token, ...(hello.server !== undefined ? { server: hello.server } : {}) };
  } catch {
    return undefined;
  }
}

export function parseAnswer(line: string): HelloAnswer | undefined {
  try {
    const answer = JSON.parse(line) as Partial<HelloAnswer> & { error?: unknown };
    if (answer.ok === true) return { tetherBridge: Number(answer.tetherBridge), ok: true };
    if (answer.ok === false) return { tetherBridge: Number(answer.tetherBridge), ok: false, error: String(answer.error) };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * Read the first line of a stream: resolves with it and whatever bytes came after it in the same
 * chunk, or rejects when the stream ends first or the line exceeds `maxBytes`.
 */
export function readFirstLine(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
): Promise<{ line: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      stream.removeListener("data", onData);
      stream.removeListener("end", onEnd);
      stream.removeListener("error", onError);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      const newline = bytes.indexOf(10);
      if (newline === -1) {
        parts.push(bytes);
        size += bytes.length;
        if (size > maxBytes) {
          cleanup();
          reject(new Error(`the first line is longer than ${maxBytes} bytes`));
        }
        return;
      }
      cleanup();
      stream.pause();
      parts.push(bytes.subarray(0, newline));
      resolve({ line: Buffer.concat(parts).toString("utf8").replace(/\r$/, ""), rest: bytes.subarray(newline + 1) });
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error("the connection ended before its first line"));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
  });
}
