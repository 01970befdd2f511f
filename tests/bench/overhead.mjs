// What the remaining overhead of each hot path is made of, measured with profiles (node --cpu-prof,
// Chromium's profiler), strace and counted host calls on this 2-core machine (2026-11-27 and -28). The
// summary prints a row's note when the row misses its goal. Update a note when a change moves
// the time elsewhere.

export const OVERHEAD = {
  "edit-1mb":
    "below the file I/O any Edit needs here: the floor row under it, an atomic replace of the same 1 MB file in plain Node with no diff (realpath, stat, read, " +
    "a temp file with the mode, rename), takes 4.4 ms, 0.7-0.8× createPatch; Tether's Edit with its diff takes 3.7 ms (one read through the cache, " +
    "the core's replace and line diff, the text hashed for the audit log by Node in 1.3 ms, a temp file in three 512 KB writes, rename). The goal, ~1.8 ms, is under that floor",
  "first-edit-cold":
    "profiled in one process (inspector, 10 µs sampling): a cold first Edit spent 3.2 ms in wasm (each function compiled lazily on its first call, baseline code), " +
    "the 100th 0.1 ms. tether-mcp now warms the core on a 30-line in-memory file and Node's file writes on a scratch file in the temp folder before it serves " +
    "(~20 ms at its start); timed inside the server, the first Edit's handling is then within ~0.3 ms of the 100th (median of five processes), and the rest is the stdio round trip and " +
    "JavaScript not yet optimised on both sides of the pipe",
  "cli-first-request":
    "inside the CLI: with no Tether code running, the CLI takes 27-34 ms more to reach its first request with Tether's initialize (the MCP manifest of Tether's tools, " +
    "the Explore and Plan agents, the guard's hook) than with none; Tether's own code adds 2-4 ms (in-process minus initialize-only, per round). " +
    "By part (25 interleaved runs): an empty initialize ~7 ms, only the MCP server and manifest ~15 ms",
  "helper-trivial-command":
    "executing any VS Code command slows the next spawn: the floor printed above it, the direct spawn right after a call Tether Remote refuses at once (untimed), " +
    "is 0.6-0.7 ms over the bare direct spawn (VS Code then sends the workbench an activation event and a telemetry event). The helper tier is 1.03-1.05× that floor " +
    "(three probes of 300 runs each); the rest is the call's dispatch there and back, ~0.14 ms timed inside the handler",
  "session-remote":
    "per step, remote minus local (two runs after the move through Tether Remote): Send −12/−19 ms, Read +5/−35, Edit −24/+6, Bash and Grep faster; " +
    "a remote write is the temp file through vscode.workspace.fs (~19 ms) and one rename(2) through Tether Remote (before: VS Code's rename, ~113 ms in six file-system calls through the renderer)",
  "checkpoint-first-edit":
    "each fresh 1 MB file's before-image stays in memory until the turn ends, and tether-mcp's life is one turn: the checkpointed process grows its wasm memory " +
    "for every first Edit, where the checkpoints-off process reuses what it freed. Counted (/proc/PID/stat, 20 first Edits each, two runs): 516 minor page faults " +
    "per Edit against 262, i.e. one more MB of fresh pages, at ~2-4.5 µs a fault in this VM; RSS +53 MB against +37 MB. With both servers in one process " +
    "(one wasm memory), the ratio is 0.89-1.03 over three turns; the remote row, whose turn ends, meets its goal",
  "grep-local":
    "the floor row under it, rg spawned without blocking (as a server must) plus the mtimes of its 208 matches that Claude Code's Grep sorts by, is ~1.02× " +
    "the baseline's execFileSync. Over that floor, in process (medians of 30, by phase): before rg 0.45-0.7 ms (the path's realpath and stat), reading rg's output " +
    "0.5, sorting and the answer 0.45; through tether-mcp the JSON-RPC round trip adds ~0.4 ms (a ping) to ~1 ms (a Grep's 10 KB answer)",
  "grep-remote":
    "rg's own time in the extension host spreads from ~60 to ~170 ms between runs; Tether adds the helper call and one statMany for the 208 mtimes (one call, ~1.4 ms)",
  "first-paint-5000":
    "spread thin (Chromium profile): applying 10.5k events 13-17 ms, a young-generation GC 7-8 ms, code not yet optimised (markdown-it ~10 ms), " +
    "the first style and layout ~11 ms, one frame ~7 ms",
  "stream-delta-p95-5000":
    "set by the deltas that land in a browser frame: ~1.5 ms of ours, 2-2.5 ms of frame work (paint, layers, the rows' resize observer), ~0.5 ms of the layout the bench forces",
  "stream-delta-p95-50000":
    "as at 5,000 messages: the deltas that land in a browser frame set the p95 (the work per delta grows little with the rows: p50 1.6 ms at 5,000, 2.1 ms at 50,000)",
  "acp-tool-call":
    "the transport's floor: a bare relay process and socket with nothing behind them costs 0.04-0.16 ms a round trip here, depending on the run; " +
    "the ACP agent's call itself, in process, is faster than the Claude backend's (190 against 215 µs); the Read's file-system calls cost ~8 µs more each " +
    "when the process sleeps between messages (one stat: 16 µs against 7.5 in process)",
  "send-first-request-vs-bare":
    "Tether's share after the send: the user message through the core and the UserPromptSubmit hook callback the CLI asks Tether for (one round trip)",
};
