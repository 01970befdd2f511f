// Newline-delimited JSON-RPC over a pair of streams (the MCP stdio transport): every message is
// handled as soon as its line is complete, concurrently with the others, and each answer is
// written as one line the moment it is ready.

/** Lines beyond this are dropped and answered with an error instead of being buffered without
 * bound; far above any real message (a 10 MB file, JSON-escaped, fits). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export type Frame = { line: string } | { oversized: number };

/** Splits a byte stream that arrives in arbitrary chunks into lines; `\r\n` is accepted, blank
 * lines are skipped, and bytes are decoded only once a line is whole (so a character split across
 * chunks survives). */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside an oversized line: its length so far, while its bytes are dropped. */
  private discarding: number | null = null;

  constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, newline));
      const frame = this.endLine();
      if (frame) frames.push(frame);
      start = newline + 1;
    }
    this.append(chunk.subarray(start));
    return frames;
  }

  /** The stream ended: a last line without a newline still counts. */
  finish(): Frame | null {
    return this.size > 0 || this.discarding !== null ? this.endLine() : null;
  }

  private append(part: Buffer): void {
    if (this.discarding !== null) {
      this.discarding += part.length;
    } else if (this.size + part.length > this.maxLineBytes) {
      this.discarding = this.size + part.length;
      this.parts = [];
      this.size = 0;
    } else if (part.length > 0) {
      this.parts.push(part);
      this.size += part.length;
    }
  }

  private endLine(): Frame | null {
    if (this.discarding !== null) {
      const oversized = this.discarding;
      this.discarding = null;
      return { oversized };
    }
    let line = Buffer.concat(this.parts).toString("utf8");
    this.parts = [];
    this.size = 0;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    return line.trim() === "" ? null : { line };
  }
}

export interface MessageHandler {
  /** One JSON-RPC message in; the response, or undefined for a notification. */
  handle(message: string): Promise<string | undefined>;
}

export interface NdjsonOptions {
  input: AsyncIterable<Buffer | string>;
  output: { write(data: string): unknown };
  log: (message: string) => void;
  maxLineBytes?: number;
}

function errorLine(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } });
}

/** Serve until the input ends; resolves once every message received has been answered. */
export async function serveNdjson(handler: MessageHandler, options: NdjsonOptions): Promise<void> {
  const { input, output, log } = options;
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const splitter = new LineSplitter(maxLineBytes);
  const inFlight = new Set<Promise<void>>();

  const dispatch = (frame: Frame): void => {
    if ("oversized" in frame) {
      log(`dropped a message of ${frame.oversized} bytes (limit ${maxLineBytes})`);
      output.write(errorLine(-32600, `Invalid Request: message of ${frame.oversized} bytes exceeds the limit of ${maxLineBytes} bytes`) + "\n");
      return;
    }
    const task = handler.handle(frame.line).then(
      (response) => {
        if (response !== undefined) output.write(response + "\n");
      },
      (error: unknown) => {
        log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        let id: unknown = null;
        try {
          id = (JSON.parse(frame.line) as { id?: unknown }).id ?? null;
        } catch {
          // Unparseable lines are answered by the core itself; nothing to recover here.
        }
        output.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: `Internal error: ${String(error)}` } }) + "\n");
      },
    );
    const tracked = task.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  for await (const chunk of input) {
    for (const frame of splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) dispatch(frame);
  }
  const last = splitter.finish();
  if (last) dispatch(last);
  while (inFlight.size > 0) await Promise.all(inFlight);
}
