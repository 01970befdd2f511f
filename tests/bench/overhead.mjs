// What the remaining overhead of each hot path is made of, measured with profiles (node --cpu-prof,
// Chromium's profiler), strace and counted host calls on this 2-core machine (2026-11-27). The
// summary prints a row's note when the row misses its goal. Update a note when a change moves
// the time elsewhere.

export const OVERHEAD = {
  "edit-1mb":
    "one Edit of 1 MB (strace and profile of the 50th): a realPath and a stat (together), the core's replace and line diff, the text copied out of the wasm (1.7 ms) " +
    "and hashed for the audit log (1.3 ms); then the host's write: a realPath and a stat (symlinks, the file's mode), a temp file written in three 512 KB thread-pool jobs, " +
    "chmod, rename, and the core's stat for the new mtime. About half is file I/O, which the baseline (createPatch on strings in memory) does not do",
  "first-edit-cold":
    "the first calls run the core on V8's baseline (Liftoff) code until TurboFan tiers the hot functions up: 12 of the first Edit's 20 ms (profiled) are in wasm; " +
    "eager compilation gains ~2 ms, a lower tiering budget loses 30+, a warm-up through a second server on a scratch file does not carry over (per-server first-call state)",
  "cli-first-request":
    "inside the CLI: it spends 70-130 ms (medians of 7, ±100 ms run to run) taking Tether's 33 KB initialize (the MCP manifest of Tether's tools, agents, hooks) before its first request; " +
    "an empty initialize costs ~13 ms; Tether's own code adds nothing measurable (in-process minus initialize-only, per round)",
  "helper-trivial-command":
    "the helper costs ~0.6 ms per call to dispatch (executeCommand, the link, the pairing check, the reply); the rest (+1.5-2 ms at every quantile over 300 interleaved calls) " +
    "is inside the same NodeHost.run spawn code, between the child's spawn event and its close, likely VS Code's own messages around a command dispatch on the same event loop",
  "session-remote":
    "per step, remote minus local (two runs after the move through Tether Remote): Send −12/−19 ms, Read +5/−35, Edit −24/+6, Bash and Grep faster; " +
    "a remote write is the temp file through vscode.workspace.fs (~19 ms) and one rename(2) through Tether Remote (before: VS Code's rename, ~113 ms in six file-system calls through the renderer)",
  "checkpoint-first-edit":
    "each fresh 1 MB file's before-image stays in memory until the turn ends, and tether-mcp's life is one turn: every first Edit allocates fresh wasm memory " +
    "where the checkpoints-off server reuses what it freed (not profiled; the remote row, whose turn ends, meets its goal)",
  "grep-local":
    "rg's own time spreads more than the gap; Tether adds one JSON-RPC call, Claude Code's Grep argv (six VCS-folder globs against the baseline's one) " +
    "and one stat per matched file to sort by mtime (183 parallel fs.promises.stat: 6-14 ms under load; a statSync loop: 1-1.7 ms)",
  "grep-remote":
    "rg's own time in the extension host spreads from ~240 to ~540 ms within one run; Tether adds the helper call and the 208 stats of one batched statMany (to sort by mtime)",
  "first-paint-5000":
    "spread thin (Chromium profile): applying 10.5k events 13-17 ms, a young-generation GC 7-8 ms, code not yet optimised (markdown-it ~10 ms), " +
    "the first style and layout ~11 ms, one frame ~7 ms",
  "stream-delta-p95-5000":
    "set by the deltas that land in a browser frame: ~1.5 ms of ours, 2-2.5 ms of frame work (paint, layers, the rows' resize observer), ~0.5 ms of the layout the bench forces",
  "stream-delta-p95-50000":
    "as at 5,000 messages: the deltas that land in a browser frame set the p95 (the work per delta grows little with the rows: p50 1.6 ms at 5,000, 2.1 ms at 50,000)",
  "send-first-request-vs-bare":
    "Tether's share after the send: the user message through the core and the UserPromptSubmit hook callback the CLI asks Tether for (one round trip)",
};
