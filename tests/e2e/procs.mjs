// Processes and their sockets, read from /proc (Linux): a process tree by PID, a process's
// command line, and the TCP sockets it listens on (the LISTEN entries of /proc/<pid>/net/tcp and
// tcp6 whose inode is one of the process's own file descriptors).

import fs from "node:fs";

const TCP_LISTEN = "0A";

/** The PIDs of every process whose parent chain reaches `root` (root excluded). */
export function descendants(root) {
  const children = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (!stat) continue;
    // Field 4 is the parent PID; the command name (field 2) may hold spaces and parentheses.
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(name));
  }
  const found = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift();
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

export function commandLine(pid) {
  return (read(`/proc/${pid}/cmdline`) ?? "").split("\0").filter(Boolean).join(" ");
}

/** The socket inodes among a process's open file descriptors. */
function socketInodes(pid) {
  const inodes = new Set();
  let fds = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes; // gone
  }
  for (const fd of fds) {
    let target;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]);
  }
  return inodes;
}

/** `{inode, address}` for each TCP socket (v4 and v6) `pid` holds in the LISTEN state. */
export function listeningTcp(pid) {
  const mine = socketInodes(pid);
  const found = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = read(`/proc/${pid}/net/${table}`);
    if (!text) continue;
    for (const line of text.trim().split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const [local, , state] = [f[1], f[2], f[3]];
      const inode = f[9];
      if (state === TCP_LISTEN && mine.has(inode)) found.push({ inode, address: `${table}:${decodeAddress(local)}` });
    }
  }
  return found;
}

function decodeAddress(hex) {
  const [ip, port] = hex.split(":");
  const portNumber = parseInt(port, 16);
  if (ip.length === 8) {
    const bytes = ip.match(/../g).map((b) => parseInt(b, 16)).reverse();
    return `${bytes.join(".")}:${portNumber}`;
  }
  return `[${ip}]:${portNumber}`;
}

function read(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
