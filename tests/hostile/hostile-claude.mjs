#!/usr/bin/env node
// A hostile stand-in for the claude binary, for the stream-json side of the catalogue: it answers
// Tether's initialize, then writes what $HOSTILE_SCENARIO says on its stdout, and appends every
// line Tether writes to it to $HOSTILE_LOG (one JSON per line) for the test to check.
//   garbage   lines that are not stream-json (binary, invalid UTF-8, a 2 MB line, deep nesting,
//             unknown types, wrong field types) around a normal turn
//   crash     garbage, then exit 3 without answering initialize
//   mcp       hostile MCP calls through mcp_message control requests, then a normal turn
//   unasked   tools/call messages for calls the CLI never asked can_use_tool about (a write
//             outside the workspace, a read of a file outside it): the gate must still decide

import fs from "node:fs";
import { createInterface } from "node:readline";

const scenario = process.env.HOSTILE_SCENARIO;
const log = process.env.HOSTILE_LOG;
const out = (value) => process.stdout.write(typeof value === "string" || Buffer.isBuffer(value) ? value : JSON.stringify(value) + "\n");

const GARBAGE = [
  "not json at all\n",
  Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a]),
  Buffer.concat([Buffer.from('{"type":"assistant","message":"caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"}\n')]),
  "x".repeat(2 << 20) + "\n",
  "[".repeat(50_000) + "\n",
  "[1,2,3]\n",
  "null\n",
  '{"type":"no_such_type","x":1}\n',
  '{"type":"result","subtype":5,"is_error":"yes"}\n',
  '{"type":"control_response","response":{"subtype":"success","request_id":{"an":"object"}}}\n',
  '{"type":"control_response","response":{"subtype":"success","request_id":"never-asked"}}\n',
  '{"type":"control_request","request_id":"r-unknown","request":{"subtype":"no_such_request"}}\n',
  '{"type":"control_request","request_id":"r-other-server","request":{"subtype":"mcp_message","server_name":"evil","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}}\n',
  '{"type":"control_cancel_request","request_id":"never-started"}\n',
];

/** The hostile MCP calls (request id → JSON-RPC message) the mcp scenario sends; ROOT is the workspace. */
export const MCP_CALLS = {
  "m-unknown-arg": { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "Read", arguments: { file_path: "ROOT/a.txt", offest: 1 } } },
  "m-object-id": { jsonrpc: "2.0", id: { a: 1 }, method: "tools/call", params: { name: "Read", arguments: { file_path: "ROOT/a.txt" } } },
  "m-no-tool": { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "NoSuchTool", arguments: {} } },
  "m-nul": { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "Write", arguments: { file_path: "ROOT/a\u0000.txt", content: "x" } } },
  "m-edit": { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "Edit", arguments: { file_path: "ROOT/a.txt", old_string: "alpha", new_string: "ALPHA" } } },
};

/** Calls made without a can_use_tool first; OUTSIDE is a folder outside the workspace. */
export const UNASKED_CALLS = {
  "u-write": { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "Write", arguments: { file_path: "OUTSIDE/planted.txt", content: "x\n" }, _meta: { "claudecode/toolUseId": "toolu_never_asked" } } },
  "u-read": { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "Read", arguments: { file_path: "OUTSIDE/secret.txt" } } },
};

function result() {
  out({ type: "result", subtype: "success", is_error: false, duration_ms: 1, duration_api_ms: 1, num_turns: 1, session_id: "hostile", result: "done", stop_reason: "end_turn" });
}

if (scenario === "crash") {
  for (const line of GARBAGE.slice(0, 4)) out(line);
  process.stdout.write("", () => process.exit(3));
} else {
  const pending = new Set();
  let turnStarted = false;
  const root = process.env.HOSTILE_ROOT ?? "";
  const rl = createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    if (log) fs.appendFileSync(log, line + "\n");
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.type === "control_request" && message.request?.subtype === "initialize") {
      if (scenario === "garbage") for (const g of GARBAGE) out(g);
      out({ type: "control_response", response: { subtype: "success", request_id: message.request_id, response: { commands: [], models: [], claude_code_version: "hostile" } } });
    } else if (message.type === "control_response" && pending.has(message.response?.request_id)) {
      pending.delete(message.response.request_id);
      if (pending.size === 0) result();
    } else if (message.type === "user" && !turnStarted) {
      turnStarted = true;
      if (scenario === "garbage") {
        for (const g of GARBAGE) out(g);
        result();
      } else if (scenario === "mcp" || scenario === "unasked") {
        const calls = scenario === "mcp" ? MCP_CALLS : UNASKED_CALLS;
        for (const [id, call] of Object.entries(calls)) {
          pending.add(id);
          const text = JSON.stringify(call).replaceAll("ROOT", root).replaceAll("OUTSIDE", process.env.HOSTILE_OUTSIDE ?? "");
          out({ type: "control_request", request_id: id, request: { subtype: "mcp_message", server_name: "tether", message: JSON.parse(text) } });
        }
      }
    }
  });
  rl.on("close", () => process.exit(0));
}
