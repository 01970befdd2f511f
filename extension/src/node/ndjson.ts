// Newline-delimited JSON-RPC over a pair of streams (the MCP stdio transport): every message is
// handled as soon as its line is complete, concurrently with the others, and each answer is
// written as one line the moment it is ready. Lines are split by the core's framing.

import { createNdjsonSplitter, type NdjsonFrame } from "../core/wasm";

export interface MessageHandler {
  /** One JSON-RPC message in; the response, or undefined for a notification. */
  handle(message: string): Promise<string | undefined>;
}

export interface NdjsonOptions {
  input: AsyncIterable<Buffer | string>;
  output: { write(data: string): unknown };
  log: (message: string) => void;
  /** Longer messages are answered with an error; default the core's (64 MiB). */
  maxLineBytes?: number;
}

function errorLine(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } });
}

/** Serve until the input ends; resolves once every message received has been answered. */
export async function serveNdjson(handler: MessageHandler, options: NdjsonOptions): Promise<void> {
  const { input, output, log } = options;
  const splitter = createNdjsonSplitter(options.maxLineBytes);
  const maxLineBytes = splitter.maxLineBytes;
  const inFlight = new Set<Promise<void>>();

  const dispatch = (frame: NdjsonFrame): void => {
    if (frame.kind === "oversized") {
      log(`dropped a message of ${frame.bytes} bytes (limit ${maxLineBytes})`);
      output.write(errorLine(-32600, `Invalid Request: message of ${frame.bytes} bytes exceeds the limit of ${maxLineBytes} bytes`) + "\n");
      return;
    }
    if (frame.kind === "invalidUtf8") {
      log(`dropped a message of ${frame.bytes} bytes that is not UTF-8`);
      output.write(errorLine(-32700, `Parse error: the message is not valid UTF-8 (from byte ${frame.validUpTo})`) + "\n");
      return;
    }
    const line = frame.line;
    const task = handler.handle(line).then(
      (response) => {
        if (response !== undefined) output.write(response + "\n");
      },
      (error: unknown) => {
        log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        let id: unknown = null;
        try {
          id = (JSON.parse(line) as { id?: unknown }).id ?? null;
        } catch {
          // Unparseable lines are answered by the core itself; nothing to recover here.
        }
        output.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: `Internal error: ${String(error)}` } }) + "\n");
      },
    );
    const tracked = task.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  try {
    for await (const chunk of input) {
      for (const frame of splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) dispatch(frame);
    }
    const last = splitter.finish();
    if (last) dispatch(last);
  } finally {
    splitter.free();
  }
  while (inFlight.size > 0) await Promise.all(inFlight);
}
