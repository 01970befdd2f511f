// Where the bridge listens: a private local endpoint with a random name, never a TCP port.
// POSIX: a Unix domain socket in a fresh directory only the user can enter (0700), so no other
// user can even reach the socket. Windows: a named pipe `\\.\pipe\tether-<random>`; pipes live in
// one machine-wide namespace, so there the random name and the token are the protection.

import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

export interface BridgeEndpoint {
  /** What `net.connect` / `server.listen` take: a socket path or a pipe name. */
  address: string;
  /** The private directory holding the socket (POSIX), removed by `dispose`. */
  directory?: string;
  dispose(): void;
}

/** 128 random bits, hex: for pipe names and tokens. */
export function randomHex(bytes = 16): string {
  return randomBytes(bytes).toString("hex");
}

/**
 * A new endpoint. `parentDir` is where the private directory goes on POSIX (default: the OS temp
 * folder; a socket path must stay under ~104 bytes, so keep it short).
 */
export function createEndpoint(platform: NodeJS.Platform = process.platform, parentDir: string = tmpdir()): BridgeEndpoint {
  if (platform === "win32") {
    return { address: `\\\\.\\pipe\\tether-${randomHex()}`, dispose: () => {} };
  }
  const directory = mkdtempSync(path.join(parentDir, "tether-"));
  chmodSync(directory, 0o700);
  return {
    address: path.join(directory, "mcp.sock"),
    directory,
    dispose: () => rmSync(directory, { recursive: true, force: true }),
  };
}
