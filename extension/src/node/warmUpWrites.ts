// One atomic write, one replacement and one read of a scratch file in the OS's temp folder, through
// the Node host's own code, when tether-mcp starts (each call does it again). The core's warm-up
// (core/warmUp.ts) runs on memory and cannot reach Node's file-writing path: measured over ten
// fresh tether-mcp processes each, the first Edit (after a Read) took 2.8-3.0 ms without this and
// 1.9 ms with it, against ~1.3 ms for the 100th. The scratch file holds a few bytes of its own,
// never the project's.

import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { TetherHost } from "../core/host";

const encoder = new TextEncoder();

/** Warms `host`'s write path (create, then replace keeping the mode, then read back) on a file in a
 * fresh folder under `parent`, and removes the folder. Resolves to whether every step succeeded,
 * never rejects: a failed warm-up only leaves the first real write slower. */
export async function warmUpHostWrites(host: TetherHost, parent: string = tmpdir()): Promise<boolean> {
  let folder: string | undefined;
  try {
    folder = await fsp.mkdtemp(path.join(parent, "tether-warm-up-"));
    const file = path.join(folder, "warm.txt");
    await host.writeFile(file, encoder.encode("warm\n"));
    await host.writeFile(file, encoder.encode("warmer\n"));
    await host.readFile(file);
    return true;
  } catch {
    return false;
  } finally {
    if (folder) await fsp.rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}
