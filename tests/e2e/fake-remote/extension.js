// Test-only: an emulated remote for Tether's e2e suite.
// - `tetherfake:/abs/path` is the file /abs/path on this disk, served by a FileSystemProvider, so
//   a window opened on it has a non-file workspace folder exactly like a Remote-SSH one
//   (vscode-remote://…/abs/path): Tether must reach it through vscode.workspace.fs and the remote
//   executor, never through local paths.
// - A control port on 127.0.0.1 (written to ~/.tether-test-control) runs VS Code commands for
//   the test process and answers with their results.

const fs = require("node:fs");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");
const vscode = require("vscode");

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
    try {
      await fs.promises.mkdir(uri.path, { recursive: true });
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async readFile(uri) {
    try {
      return await fs.promises.readFile(uri.path);
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async writeFile(uri, content, options) {
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
    try {
      await fs.promises.rm(uri.path, { recursive: Boolean(options.recursive) });
    } catch (error) {
      throw fsError(error, uri);
    }
  }

  async rename(from, to, options) {
    if (!options.overwrite && fs.existsSync(to.path)) throw vscode.FileSystemError.FileExists(to);
    try {
      await fs.promises.rename(from.path, to.path);
    } catch (error) {
      throw fsError(error, from);
    }
  }
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
  context.subscriptions.push(vscode.workspace.registerFileSystemProvider("tetherfake", new DiskFileSystem(), { isCaseSensitive: true }));
  startControlServer(context);
};
exports.deactivate = () => undefined;
