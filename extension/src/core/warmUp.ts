// A Read and two Edits through a throwaway server on a small in-memory file, once per process,
// before the user's first tool call. V8 compiles each wasm function on its first call and runs it
// on baseline (Liftoff) code: a profile of a cold first Edit showed 3.2 ms in wasm, the 100th
// 0.1 ms. Compiled code belongs to the module, not to a server, so the warmth carries over to every
// server and agent in the process. Nothing touches a disk.
//
// The file is small on purpose (measured with a 200-line file edited right after, in process):
// 30 to 100 lines left the first Edit at 1.6-2.2 ms against 4.5-5.2 ms cold, 3 or 10 lines warmed
// too little (2.2-4.4 ms), and 200 lines heated the loops enough to set off V8's optimising tier,
// whose compiles then slowed that first Edit to 4-15 ms.

import { hostError, type TetherHost } from "./host";
import { createTetherServer } from "./wasm";

const ROOT = "/tether-warm-up";
const FILE = `${ROOT}/warm.ts`;
const TEXT = Array.from({ length: 30 }, (_, i) => `export const value${i} = compute(${i}, "warm");`).join("\n") + "\n";

/** A host holding one folder and the files written to it in memory; it runs nothing. */
class MemoryHost implements TetherHost {
  private readonly files = new Map<string, Uint8Array>([[FILE, new TextEncoder().encode(TEXT)]]);

  private file(path: string): Uint8Array {
    const data = this.files.get(path);
    if (!data) throw hostError("ENOENT", `ENOENT: no such file, ${path}`);
    return data;
  }

  async readFile(path: string): Promise<Uint8Array> {
    return this.file(path);
  }
  async writeFile(path: string, data: Uint8Array): Promise<void> {
    this.files.set(path, data.slice());
  }
  async stat(path: string) {
    if (path === ROOT) return { kind: "directory" as const, size: 0, mtimeMs: 0 };
    return { kind: "file" as const, size: this.file(path).length, mtimeMs: 0 };
  }
  async lstat(path: string) {
    return this.stat(path);
  }
  async readDir() {
    return [...this.files.keys()].map((path) => ({ name: path.slice(ROOT.length + 1), kind: "file" as const }));
  }
  async realPath(path: string): Promise<string> {
    return path;
  }
  async mkdir(): Promise<void> {}
  async rename(from: string, to: string): Promise<void> {
    this.files.set(to, this.file(from));
    this.files.delete(from);
  }
  async remove(path: string): Promise<void> {
    this.files.delete(path);
  }
  private refuse(): never {
    throw hostError("ENOSYS", "the warm-up host runs nothing");
  }
  async run(): Promise<never> {
    this.refuse();
  }
  async spawnBackground(): Promise<never> {
    this.refuse();
  }
  async readBackground(): Promise<never> {
    this.refuse();
  }
  async killBackground(): Promise<boolean> {
    return false;
  }
  async ripgrep(): Promise<null> {
    return null;
  }
  nowMs(): number {
    return Date.now();
  }
}

let warming: Promise<boolean> | undefined;

/** Warms the core's file tools once per process; later calls share the first. Resolves to whether
 * every call succeeded, never rejects: a failed warm-up only leaves the first real call slow. */
export function warmUpCore(): Promise<boolean> {
  warming ??= (async () => {
    const server = createTetherServer(new MemoryHost(), { root: ROOT });
    const call = async (name: string, args: object) => {
      const answer = await server.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }));
      if (!answer?.includes('"isError":false')) throw new Error(`warm-up ${name}: ${answer}`);
    };
    try {
      await call("Read", { file_path: FILE });
      await call("Edit", { file_path: FILE, old_string: "compute(7,", new_string: "recompute(7," });
      await call("Edit", { file_path: FILE, old_string: "recompute(7,", new_string: "compute(7," });
      return true;
    } finally {
      server.free();
    }
  })().catch(() => false);
  return warming;
}
