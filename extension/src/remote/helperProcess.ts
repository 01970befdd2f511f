// A long-lived process on the remote through Tether Remote (helper/processes.ts): its stdin
// written in order, its stdout read by one long poll after another. A link that stays down ends
// the conversation as an exit, so nothing waits forever on a process it can no longer reach.

import { ChunkQueue, type ProcessExit, type ProcessSpec, type StdioProcess } from "../node/stdioProcess";
import type { ProcessRead } from "../helper/processes";
import { HelperCommand } from "./protocol";

/** One helper command with the window's secret (HelperExecutor's `call`). */
export type HelperCall = <T>(command: string, args: unknown, limitMs: number) => Promise<T>;

/** How long each read may wait on the remote. */
const READ_WAIT_MS = 20_000;
/** Reads that may fail in a row (the link down) before the process counts as gone. */
const MAX_FAILED_READS = 3;
const RETRY_DELAY_MS = 1000;

export async function startHelperProcess(call: HelperCall, spec: ProcessSpec): Promise<StdioProcess> {
  const id = await call<string>(HelperCommand.processStart, spec, 0);
  const stdout = new ChunkQueue();
  // The helper sends its whole tail with every read; a lost link adds a line of ours.
  let stderrTail = "";
  let writes = Promise.resolve();
  let finish: (exit: ProcessExit) => void = () => undefined;
  const exited = new Promise<ProcessExit>((resolve) => (finish = resolve));
  let done = false;
  void (async () => {
    let failures = 0;
    while (!done) {
      let read: ProcessRead;
      try {
        read = await call<ProcessRead>(HelperCommand.processRead, { id, waitMs: READ_WAIT_MS }, READ_WAIT_MS);
        failures = 0;
      } catch (error) {
        if (++failures >= MAX_FAILED_READS) {
          stderrTail += `\n[Tether lost the link to the process on the remote: ${error instanceof Error ? error.message : String(error)}]`;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        continue;
      }
      if (read.stdout) stdout.push(read.stdout);
      stderrTail = read.stderrTail;
      if (read.exit) {
        finish(read.exit);
        done = true;
        return;
      }
    }
    done = true;
    finish({ code: null, signal: null });
  })();
  return {
    pid: undefined,
    write: (data) => {
      writes = writes.then(() => call<void>(HelperCommand.processWrite, { id, data }, 0));
      return writes;
    },
    onStdout: (listener) => stdout.listen(listener),
    exited,
    stderrTail: () => stderrTail,
    kill: async () => {
      if (done) return;
      done = true;
      await call<boolean>(HelperCommand.processKill, id, 0).catch(() => false);
      finish({ code: null, signal: "SIGTERM" });
    },
  };
}
