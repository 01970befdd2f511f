// Loads the core (the wasm-bindgen `--target nodejs` output of crate/, built by build.sh into
// target/wasm-pkg) and creates servers on a host. The glue reads `tether_core_bg.wasm` from its
// own directory (`__dirname`); once bundled, that is the bundle's directory, so the wasm file ships
// beside every bundle that includes this module. The NDJSON framing every stdio peer uses comes from
// the core too.

import type { TetherHost } from "./host";

type Glue = typeof import("tether-core-wasm");
export type TetherServer = import("tether-core-wasm").TetherServer;
export type NdjsonSplitter = import("tether-core-wasm").NdjsonSplitter;
export type { NdjsonFrame } from "../generated/core";

export interface TetherConfig {
  /** The workspace root: an absolute path in the workspace's namespace. */
  root: string;
  /** The CLI's local mirror folder, whose paths map onto root. */
  mirror?: string;
  /** Let tools touch paths outside the root (the permission layer asks first). */
  allowOutsideRoot?: boolean;
  /** Extra environment for commands. */
  env?: Record<string, string>;
  /** A folder for checkpoints (the before-images of the files the tools change). */
  checkpoints?: string;
}

let glue: Glue | undefined;

/** Load the wasm module once. Throws when the wasm file is missing or invalid. */
export function loadTetherCore(): Glue {
  // A require inside the function keeps loading lazy (and its failure catchable) after bundling.
  glue ??= require("tether-core-wasm") as Glue;
  return glue;
}

/** A server with Tether's tools on `host`. Throws an Error with a clear message on a bad config. */
export function createTetherServer(host: TetherHost, config: TetherConfig): TetherServer {
  const { TetherServer } = loadTetherCore();
  return new TetherServer(host, config);
}

/** The core's NDJSON framing: lines over `maxLineBytes` (default 64 MiB) and lines that are not
 * UTF-8 come out as frames that say so. */
export function createNdjsonSplitter(maxLineBytes?: number): NdjsonSplitter {
  const { NdjsonSplitter } = loadTetherCore();
  return new NdjsonSplitter(maxLineBytes);
}
