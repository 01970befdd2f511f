// Test-only: an emulated remote for Tether's e2e suite.
// - `tetherfake:/abs/path` is the file /abs/path on this disk, served by a FileSystemProvider, so
//   a window opened on it has a non-file workspace folder exactly like a Remote-SSH one
//   (vscode-remote://…/abs/path): Tether must reach it through vscode.workspace.fs and the remote
//   executor, never through local paths.
// - A control port on 127.0.0.1 (written to ~/.tether-test-control) runs VS Code commands for
//   the test process and answers with their results.
// - Faults on demand (tests/e2e/faults.test.mjs), through the control port:
//   `_tetherfake.fsFault` makes the file system provider fail as a remote does: Unavailable (the
//   FileSystemError a dropped Remote-SSH connection surfaces) or ENOSPC (a full disk: a write
//   leaves the part that fitted behind), for some operations, after a number of them succeed.
//   `_tetherfake.link` sets the connection between Tether and Tether Remote: "hold" keeps the
//   answers of calls (they run on the "remote"; the answers wait, as while VS Code reconnects),
//   "down" fails the calls in flight and new ones with "Canceled", as VS Code fails a call whose
//   remote extension host went away (the work already started on the "remote" goes on), "up"
//   delivers what was held, and `{ down: [ids] }` fails only those commands, before they run (the
//   connection drops as they are sent); the others go through. Here Tether Remote shares
//   this extension host, so the link is emulated where it registers its commands (its `vscode`
//   module is wrapped when it loads).
// - The link's latency, jitter and bandwidth (link-model.js), applied to every file system call
//   and every command of Tether Remote, each counted as a round trip: `_tetherfake.linkModel`
//   sets them, `_tetherfake.linkStats` reads the counts (`true`: and starts them again),
//   `_tetherfake.drop` loses the connection for some milliseconds, then it comes back.

const fs = require("node:fs");
const http = require("node:http");
const Module = require("node:module");
const os = require("node:os");
const path = require("node:path");
const vscode = require("vscode");
const { LinkModel, wireBytes } = require("./link-model");

/** The link's latency and its counts of round trips (instant until a test sets it). */
const linkModel = new LinkModel();

/** The emulated connection to Tether Remote: "up"; "hold" (calls reach the remote and run, but
 * their answers wait, as during a reconnection); "down" (every call fails). */
const link = {
  state: "up",
  /** Whether Tether Remote's commands go through the link (it loaded after this extension). */
  helperLinked: false,
  /** Calls running on the "remote", per command id. */
  inflight: {},
  /** Calls whose answer is not delivered yet: {deliver(), fail()}. */
  pending: new Set(),
  /** Command ids failed before they run while the link is otherwise up. */
  downFor: new Set(),
  calls: 0,
};

function canceled() {
  const error = new Error("Canceled");
  error.name = "Canceled";
  return error;
}

function throughLink(id, handler) {
  return (...args) => {
    link.calls++;
    if (link.state === "down" || link.downFor.has(id)) return Promise.reject(canceled());
    link.inflight[id] = (link.inflight[id] ?? 0) + 1;
    // Named by its arguments, without the pairing secret each call carries.
    const subject = JSON.stringify(args.map((arg) => (arg && typeof arg === "object" && "secret" in arg ? arg.args : arg))).slice(0, 160);
    const run = () => linkModel.roundTrip(id, subject, wireBytes(args), () => handler(...args), wireBytes);
    return new Promise((resolve, reject) => {
      let answer;
      const call = {
        id,
        // Delivered once the remote has answered and the link is up.
        deliver: () => answer && link.pending.delete(call) && answer(),
        fail: () => link.pending.delete(call) && reject(canceled()),
      };
      link.pending.add(call);
      const settle = (finish) => (value) => {
        link.inflight[id]--;
        answer = () => finish(value);
        if (link.state === "up") call.deliver();
      };
      Promise.resolve().then(run).then(settle(resolve), settle(reject));
    });
  };
}

function setLink(spec) {
  const state = typeof spec === "string" ? spec : "up";
  link.downFor = new Set(typeof spec === "string" ? [] : spec.down);
  link.state = state;
  for (const call of [...link.pending]) {
    if (state === "down") call.fail();
    else if (state === "up") call.deliver();
  }
  return { state: link.state };
}

// Tether Remote is installed (and loaded) after this extension activates: wrap its `vscode` so its
// command handlers answer through the link.
const originalLoad = Module._load;
Module._load = function load(request, parent, ...rest) {
  const loaded = originalLoad.call(this, request, parent, ...rest);
  if (request !== "vscode" || !/tether\.tether-remote-/.test(parent?.filename ?? "")) return loaded;
  link.helperLinked = true;
  const commands = {
    ...loaded.commands,
    registerCommand: (id, handler, thisArg) => loaded.commands.registerCommand(id, throughLink(id, handler), thisArg),
  };
  return { ...loaded, commands };
};

/** The file system fault in force: { error, ops, skip, hits } or null. */
let fsFault = null;

function checkFault(op, uri) {
  if (!fsFault || (fsFault.ops && !fsFault.ops.includes(op))) return undefined;
  if (fsFault.skip > 0) {
    fsFault.skip--;
    return undefined;
  }
  fsFault.hits++;
  if (fsFault.error === "ENOSPC") return new vscode.FileSystemError(`ENOSPC: no space left on device, ${op === "writeFile" ? "write" : op}`);
  return vscode.FileSystemError.Unavailable(uri);
}

function fsError(error, uri) {
  switch (error && error.code) {
    case "ENOENT":
      return vscode.FileSystemError.FileNotFound(uri);
    case "EEXIST":
      return vscode.FileSystemError.FileExists(uri);
    case "ENOTDIR":
      return vscode.FileSystemError.FileNotADirectory(uri);
    case "EISDIR":
      return vscode.FileSystemError.FileIsADirectory(uri);
    case "EACCES":
    case "EPERM":
      return vscode.FileSystemError.NoPermissions(uri);
    default:
      return error;
  }
}

function typeOf(stats) {
  if (stats.isDirectory()) return vscode.FileType.Directory;
  if (stats.isFile()) return vscode.FileType.File;
  return vscode.FileType.Unknown;
}

class DiskFileSystem {
  constructor() {
    this.emitter = new vscode.EventEmitter();
    this.onDidChangeFile = this.emitter.event;
  }

  /** inotify per directory (Node 20's recursive fs.watch on Linux stat-polls every file, which
   * would load the extension host in a way no real remote does). */
  watch(uri, options) {
    const watchers = new Map();
    const fire = (type, file) => this.emitter.fire([{ type, uri: uri.with({ path: file }) }]);
    const add = (dir) => {
      if (watchers.has(dir)) return;
      let watcher;
      try {
        watcher = fs.watch(dir, (event, name) => {
          if (!name) return;
          const file = path.join(dir, name.toString());
          const stats = fs.statSync(file, { throwIfNoEntry: false });
          if (event === "change") return fire(vscode.FileChangeType.Changed, file);
          fire(stats ? vscode.FileChangeType.Created : vscode.FileChangeType.Deleted, file);
          if (stats?.isDirectory() && options.recursive) walk(file);
        });
      } catch {
        return;
      }
      watchers.set(dir, watcher);
    };
    const walk = (dir) => {
      add(dir);
      if (!options.recursive) return;
      let entries = [];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return; // gone, or not a folder: nothing under it to watch
      }
      for (const entry of entries) {
        if (entry.isDirectory()) walk(path.join(dir, entry.name));
      }
    };
    walk(uri.path);
    return new vscode.Disposable(() => {
      for (const w of watchers.values()) w.close();
    });
  }

  async stat(uri) {
    const fault = checkFault("stat", uri);
    if (fault) throw fault;
    try {
      const link = await fs.promises.lstat(uri.path);
      const target = link.isSymbolicLink() ? await fs.promises.stat(uri.path) : link;
      const type = typeOf(target) | (link.isSymbolicLink() ? vscode.FileType.SymbolicLink : 0);
      return { type, ctime: target.ctimeMs, mtime: target.mtimeMs, size: target.size };
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async readDirectory(uri) {
    const fault = checkFault("readDirectory", uri);
    if (fault) throw fault;
    try {
      const entries = await fs.promises.readdir(uri.path, { withFileTypes: true });
      return entries.map((e) => [
        e.name,
        e.isSymbolicLink() ? vscode.FileType.SymbolicLink | vscode.FileType.File : e.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File,
      ]);
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async createDirectory(uri) {
    const fault = checkFault("createDirectory", uri);
    if (fault) throw fault;
    try {
      await fs.promises.mkdir(uri.path, { recursive: true });
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async readFile(uri) {
    const fault = checkFault("readFile", uri);
    if (fault) throw fault;
    try {
      return await fs.promises.readFile(uri.path);
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async writeFile(uri, content, options) {
    const fault = checkFault("writeFile", uri);
    if (fault) {
      // A full disk takes what fits; a lost connection may have delivered part of the data too.
      if (fsFault.partial) await fs.promises.writeFile(uri.path, content.subarray(0, content.length >> 1)).catch(() => undefined);
      throw fault;
    }
    const exists = fs.existsSync(uri.path);
    if (!exists && !options.create) throw vscode.FileSystemError.FileNotFound(uri);
    if (exists && options.create && !options.overwrite) throw vscode.FileSystemError.FileExists(uri);
    try {
      await fs.promises.writeFile(uri.path, content);
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async delete(uri, options) {
    const fault = checkFault("delete", uri);
    if (fault) throw fault;
    try {
      await fs.promises.rm(uri.path, { recursive: Boolean(options.recursive) });
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async rename(from, to, options) {
    const fault = checkFault("rename", from);
    if (fault) throw fault;
    if (!options.overwrite && fs.existsSync(to.path)) throw vscode.FileSystemError.FileExists(to);
    try {
      await fs.promises.rename(from.path, to.path);
    } catch (error) {
      throw fsError(error, from);
    }
  }
}

/** The bytes a file system call sends: its paths, and what a write carries. */
const REQUEST_BYTES = {
  stat: (uri) => wireBytes(uri.path),
  readDirectory: (uri) => wireBytes(uri.path),
  createDirectory: (uri) => wireBytes(uri.path),
  readFile: (uri) => wireBytes(uri.path),
  writeFile: (uri, content) => wireBytes(uri.path) + content.byteLength,
  delete: (uri) => wireBytes(uri.path),
  rename: (from, to) => wireBytes(from.path) + wireBytes(to.path),
};

/** `fileSystem` with each call made over the link, one round trip each. */
function overTheLink(fileSystem) {
  for (const [op, requestBytes] of Object.entries(REQUEST_BYTES)) {
    const call = fileSystem[op].bind(fileSystem);
    fileSystem[op] = (...args) => linkModel.roundTrip(op, args[0].path, requestBytes(...args), () => call(...args), wireBytes);
  }
  return fileSystem;
}

/** The connection lost for `forMs`: the file system unavailable and Tether Remote's calls failing,
 * then both back (unless a test changed them meanwhile). */
function drop({ forMs }) {
  const fault = { error: "Unavailable", ops: null, skip: 0, partial: false, hits: 0 };
  fsFault = fault;
  setLink("down");
  setTimeout(() => {
    if (fsFault === fault) fsFault = null;
    if (link.state === "down") setLink("up");
  }, forMs);
  return { downForMs: forMs };
}

function startControlServer(context) {
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    let reply;
    try {
      const { id, args = [] } = JSON.parse(body);
      reply = { ok: true, value: await vscode.commands.executeCommand(id, ...args) };
    } catch (error) {
      reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(reply ?? { ok: true }));
  });
  server.listen(0, "127.0.0.1", () => {
    fs.writeFileSync(path.join(os.homedir(), ".tether-test-control"), String(server.address().port));
  });
  context.subscriptions.push(new vscode.Disposable(() => server.close()));
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.workspace.registerFileSystemProvider("tetherfake", overTheLink(new DiskFileSystem()), { isCaseSensitive: true }),
    /** `{error: "Unavailable"|"ENOSPC", ops?: [op], skip?: n, partial?: bool}`, or null to clear. */
    vscode.commands.registerCommand("_tetherfake.fsFault", (spec) => {
      fsFault = spec ? { ops: null, skip: 0, partial: false, ...spec, hits: 0 } : null;
      return fsFault;
    }),
    vscode.commands.registerCommand("_tetherfake.link", (state) => setLink(state)),
    /** `{rttMs?, jitterMs?, bandwidthBytesPerSec?, seed?, spike?: {extraMs, forMs}}`; resets the counts. */
    vscode.commands.registerCommand("_tetherfake.linkModel", (spec) => linkModel.configure(spec ?? {})),
    vscode.commands.registerCommand("_tetherfake.linkStats", (reset) => linkModel.read(reset === true)),
    vscode.commands.registerCommand("_tetherfake.drop", (spec) => drop(spec)),
    vscode.commands.registerCommand("_tetherfake.state", () => ({
      extensionHostPid: process.pid,
      link: { state: link.state, helperLinked: link.helperLinked, running: link.inflight, waiting: [...link.pending].map((c) => c.id), calls: link.calls },
      fsFault,
    })),
  );
  startControlServer(context);
};
exports.deactivate = () => undefined;
