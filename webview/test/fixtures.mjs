// Synthetic sessions for the virtualization tests and the first-paint benchmark.

const WORDS = "the parser reads tokens from the input and builds a tree that the checker walks to find type errors before code generation".split(" ");

function sentence(i, n) {
  const out = [];
  for (let k = 0; k < n; k++) out.push(WORDS[(i * 7 + k * 3) % WORDS.length]);
  return out.join(" ");
}

/**
 * A session of `count` timeline messages (user prompts, assistant markdown, tools with results and
 * diffs), as the UiEvent stream a replay carries. Deterministic.
 */
export function syntheticSession(count) {
  const events = [];
  let n = 0;
  let turn = 0;
  while (n < count) {
    turn++;
    events.push({ type: "userMessage", id: `u${turn}`, text: `Question ${turn}: ${sentence(turn, 12)}?` });
    n++;
    if (n >= count) break;
    const mid = `m${turn}`;
    events.push({ type: "messageStart", id: mid, role: "assistant" });
    if (turn % 3 === 0) events.push({ type: "thinkingDelta", messageId: mid, text: sentence(turn, 30) });
    events.push({
      type: "textDelta",
      messageId: mid,
      text:
        `Answer ${turn}. ${sentence(turn, 25)}.\n\n- ${sentence(turn + 1, 6)}\n- \`${WORDS[turn % WORDS.length]}\` item\n\n` +
        (turn % 4 === 0 ? "```rust\nfn main() {\n    println!(\"turn " + turn + "\");\n}\n```\n\n" : "") +
        `**Done** with step ${turn}.`,
    });
    events.push({ type: "messageStop", messageId: mid });
    n++;
    if (n >= count) break;
    const kind = turn % 4;
    const id = `t${turn}`;
    if (kind === 0) {
      events.push({ type: "toolCallStart", toolCallId: id, name: "Bash", input: { command: `cargo test --package p${turn}`, description: "Run tests" }, kind: "execute", title: "cargo test" });
      events.push({ type: "toolCallResult", toolCallId: id, isError: false, content: "", structured: { stdout: Array.from({ length: 8 }, (_, k) => `test t${k} ... ok`).join("\n"), stderr: "", exitCode: 0, interrupted: false } });
    } else if (kind === 1) {
      events.push({ type: "toolCallStart", toolCallId: id, name: "Edit", input: { file_path: `/data/proj/src/m${turn}.rs`, old_string: "a", new_string: "b" }, kind: "edit", title: "Edit" });
      events.push({
        type: "toolCallResult",
        toolCallId: id,
        isError: false,
        content: "ok",
        structured: {
          filePath: `/data/proj/src/m${turn}.rs`,
          structuredPatch: [{ oldStart: turn, oldLines: 4, newStart: turn, newLines: 4, lines: [" fn f() {", `-    let x = ${turn};`, `+    let x = ${turn + 1};`, "     x", " }"] }],
        },
      });
    } else if (kind === 2) {
      events.push({ type: "toolCallStart", toolCallId: id, name: "Read", input: { file_path: `/data/proj/src/m${turn}.rs` }, kind: "read", title: "Read" });
      events.push({ type: "toolCallResult", toolCallId: id, isError: false, content: "…", structured: { type: "text", file: { filePath: `/data/proj/src/m${turn}.rs`, numLines: 40, startLine: 1, totalLines: 40 } } });
    } else {
      events.push({ type: "toolCallStart", toolCallId: id, name: "Grep", input: { pattern: `fn f${turn}`, path: "/data/proj" }, kind: "search", title: "Grep" });
      events.push({ type: "toolCallResult", toolCallId: id, isError: false, content: "", structured: { mode: "files_with_matches", numFiles: 2, filenames: ["/data/proj/a.rs", "/data/proj/b.rs"], numMatches: 3 } });
    }
    n++;
  }
  return events;
}
