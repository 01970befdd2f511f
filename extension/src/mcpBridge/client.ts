// The bridge process's side: connect to the extension host's endpoint, show the token, then relay
// bytes both ways untouched — MCP JSON-RPC lines from the agent (our stdin) to the host, and the
// host's answers to the agent (our stdout).

import * as net from "node:net";
import { helloLine, MAX_HELLO_BYTES, parseAnswer, readFirstLine } from "./protocol";

export interface RelayOptions {
  endpoint: string;
  token: string;
  /** The host's server to reach, when its endpoint serves several. */
  server?: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  log: (message: string) => void;
}

/**
 * Relay until one side ends. Resolves with the exit code: 0 when the agent closed our stdin and
 * the host finished answering, 1 when the host could not be reached, refused the token or went away.
 */
export async function relay({ endpoint, token, server, input, output, log }: RelayOptions): Promise<number> {
  const socket = net.connect(endpoint);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
  } catch (error) {
    log(`cannot reach Tether at ${endpoint}: ${(error as Error).message}`);
    return 1;
  }
  socket.write(helloLine(token, server));
  let first: { line: string; rest: Buffer };
  try {
    first = await readFirstLine(socket, MAX_HELLO_BYTES);
  } catch (error) {
    log(`Tether did not answer the hello: ${(error as Error).message}`);
    socket.destroy();
    return 1;
  }
  const answer = parseAnswer(first.line);
  if (!answer?.ok) {
    log(`Tether refused the connection: ${answer && !answer.ok ? answer.error : "unreadable answer"}`);
    socket.destroy();
    return 1;
  }
  if (first.rest.length > 0) output.write(first.rest);

  return new Promise<number>((resolve) => {
    let inputEnded = false;
    input.on("end", () => {
      inputEnded = true;
      socket.end();
    });
    socket.on("error", (error) => log(`connection to Tether failed: ${error.message}`));
    socket.on("close", () => {
      if (!inputEnded) log("Tether closed the connection");
      // Flush what is queued for the agent before leaving.
      output.write("", () => resolve(inputEnded ? 0 : 1));
    });
    socket.pipe(output, { end: false });
    input.pipe(socket, { end: false });
  });
}
