// Chat entries as the extension sends them (the core's UiEvents, complete, plus user turns and
// permission answers), and synthetic sessions for the virtualization tests and the first-paint
// benchmark.

/** Builders for complete entries; `extra` overrides any field. */
export const ev = {
  user: (id, text, extra = {}) => ({ type: "userMessage", id, text, ...extra }),
  messageStart: (messageId, parentToolUseId = null) => ({ type: "messageStart", messageId, parentToolUseId }),
  text: (messageId, text, parentToolUseId = null) => ({ type: "textDelta", messageId, text, parentToolUseId }),
  thinking: (messageId, text, parentToolUseId = null) => ({ type: "thinkingDelta", messageId, text, parentToolUseId }),
  messageStop: (messageId) => ({ type: "messageStop", messageId, stopReason: null }),
  toolStart: (id, name, input, extra = {}) => ({
    type: "toolCallStart",
    id,
    name,
    input,
    kind: "other",
    title: name,
    locations: [],
    parentToolUseId: null,
    ...extra,
  }),
  toolInput: (id, partialJson) => ({ type: "toolInputDelta", id, partialJson }),
  toolResult: (id, structured = null, extra = {}) => ({
    type: "toolCallResult",
    id,
    isError: false,
    content: "",
    structured,
    parentToolUseId: null,
    ...extra,
  }),
  todos: (todos) => ({ type: "todoUpdate", todos }),
  plan: (toolCallId, plan) => ({ type: "plan", toolCallId, plan, filePath: null }),
  status: (state) => ({ type: "status", state }),
  modeChanged: (mode) => ({ type: "modeChanged", mode }),
  permission: (id, toolName, input, extra = {}) => ({
    type: "permissionRequest",
    id,
    toolUseId: null,
    toolName,
    rawToolName: toolName,
    kind: "other",
    input,
    agentId: null,
    suggestions: [],
    title: null,
    displayName: null,
    description: null,
    blockedPath: null,
    decisionReason: null,
    decisionReasonType: null,
    suppressAlwaysAllow: false,
    requiresUserInteraction: false,
    ...extra,
  }),
  resolved: (requestId, outcome, extra = {}) => ({ type: "permissionResolved", requestId, outcome, ...extra }),
  apiRetry: (attempt, delayMs, error, extra = {}) => ({
    type: "apiRetry",
    attempt,
    maxRetries: 10,
    delayMs,
    errorStatus: null,
    error,
    ...extra,
  }),
  usage: (inputTokens, outputTokens, extra = {}) => ({
    type: "usage",
    inputTokens,
    outputTokens,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: null,
    ...extra,
  }),
  done: (extra = {}) => ({
    type: "done",
    subtype: "success",
    isError: false,
    durationMs: 0,
    numTurns: 1,
    sessionId: "sess-1",
    result: null,
    stopReason: null,
    ...extra,
  }),
  error: (kind, message, extra = {}) => ({ type: "error", kind, severity: "error", message, hint: null, ...extra }),
};

const WORDS = "the parser reads tokens from the input and builds a tree that the checker walks to find type errors before code generation".split(" ");

function sentence(i, n) {
  const out = [];
  for (let k = 0; k < n; k++) out.push(WORDS[(i * 7 + k * 3) % WORDS.length]);
  return out.join(" ");
}

/**
 * A session of `count` timeline messages (user prompts, assistant markdown, tools with results and
 * diffs), as the entries a replay carries. Deterministic.
 */
export function syntheticSession(count) {
  const events = [];
  let n = 0;
  let turn = 0;
  while (n < count) {
    turn++;
    events.push(ev.user(`u${turn}`, `Question ${turn}: ${sentence(turn, 12)}?`));
    n++;
    if (n >= count) break;
    const mid = `m${turn}`;
    events.push(ev.messageStart(mid));
    if (turn % 3 === 0) events.push(ev.thinking(mid, sentence(turn, 30)));
    events.push(
      ev.text(
        mid,
        `Answer ${turn}. ${sentence(turn, 25)}.\n\n- ${sentence(turn + 1, 6)}\n- \`${WORDS[turn % WORDS.length]}\` item\n\n` +
          (turn % 4 === 0 ? "```rust\nfn main() {\n    println!(\"turn " + turn + "\");\n}\n```\n\n" : "") +
          `**Done** with step ${turn}.`,
      ),
    );
    events.push(ev.messageStop(mid));
    n++;
    if (n >= count) break;
    const kind = turn % 4;
    const id = `t${turn}`;
    if (kind === 0) {
      events.push(ev.toolStart(id, "Bash", { command: `cargo test --package p${turn}`, description: "Run tests" }, { kind: "execute", title: "cargo test" }));
      events.push(ev.toolResult(id, { stdout: Array.from({ length: 8 }, (_, k) => `test t${k} ... ok`).join("\n"), stderr: "", exitCode: 0, interrupted: false }));
    } else if (kind === 1) {
      events.push(ev.toolStart(id, "Edit", { file_path: `/data/proj/src/m${turn}.rs`, old_string: "a", new_string: "b" }, { kind: "edit", title: "Edit" }));
      events.push(
        ev.toolResult(
          id,
          {
            filePath: `/data/proj/src/m${turn}.rs`,
            structuredPatch: [{ oldStart: turn, oldLines: 4, newStart: turn, newLines: 4, lines: [" fn f() {", `-    let x = ${turn};`, `+    let x = ${turn + 1};`, "     x", " }"] }],
          },
          { content: "ok" },
        ),
      );
    } else if (kind === 2) {
      events.push(ev.toolStart(id, "Read", { file_path: `/data/proj/src/m${turn}.rs` }, { kind: "read", title: "Read" }));
      events.push(ev.toolResult(id, { type: "text", file: { filePath: `/data/proj/src/m${turn}.rs`, numLines: 40, startLine: 1, totalLines: 40 } }, { content: "…" }));
    } else {
      events.push(ev.toolStart(id, "Grep", { pattern: `fn f${turn}`, path: "/data/proj" }, { kind: "search", title: "Grep" }));
      events.push(ev.toolResult(id, { mode: "files_with_matches", numFiles: 2, filenames: ["/data/proj/a.rs", "/data/proj/b.rs"], numMatches: 3 }));
    }
    n++;
  }
  return events;
}
