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
  "send-first-request-vs-bare":
    "Tether's share after the send: the user message through the core and the UserPromptSubmit hook callback the CLI asks Tether for (one round trip)",
};
