// What every scripted fake model API shares: scripts of turns picked by `when` conditions, a
// loopback HTTP server that records each request, and the command-line entry. Plain Node, no
// dependencies. The API-specific parts (reading a request's facts, shaping the answer) live in
// fake-anthropic.mjs, fake-gemini.mjs and fake-openai.mjs.
//
// A script is an array of turns (or {turns:[...]}). Each model request takes the first turn not yet
// used whose `when` matches (a turn with `repeat: true` is never used up); `delayMs` on a turn
// waits before answering. `when` (all given conditions must hold), over the facts each fake reads
// from a request:
//   { lastToolResult: string|RegExp }  the last user message carries a tool result whose text matches
//   { lastUserText: string|RegExp }    the last user message's text matches
//   { hasTool: "name" }                the request offers this tool
//   { noTool: "name" }                 the request does not offer this tool
//   { system: string|RegExp }          the system prompt matches
//   (facts) => boolean                 anything else
// JSON scripts spell a RegExp as {"regex": "...", "flags": "i"}.

import http from "node:http";
import https from "node:https";
import fs from "node:fs";

export function normalizeScript(script) {
  if (Array.isArray(script)) return script;
  if (script && Array.isArray(script.turns)) return script.turns;
  throw new Error("script must be an array of turns or {turns: [...]}");
}

/** The turns of a script, each with its used flag. */
export function scriptSlots(script) {
  return normalizeScript(script).map((turn) => ({ turn, used: false }));
}

/** The first usable turn whose `when` matches the facts, marked used (unless `repeat`); null when none. */
export function takeTurn(slots, facts) {
  const slot = slots.find(({ turn, used }) => (!used || turn.repeat) && matches(turn.when, facts));
  if (!slot) return null;
  if (!slot.turn.repeat) slot.used = true;
  return slot.turn;
}

function test(pattern, value) {
  if (value == null) return false;
  return pattern instanceof RegExp ? pattern.test(value) : value.includes(pattern);
}

export function matches(when, facts) {
  if (!when) return true;
  if (typeof when === "function") return !!when(facts);
  if (when.lastToolResult !== undefined && !test(reviveRegExp(when.lastToolResult), facts.lastToolResult)) return false;
  if (when.lastUserText !== undefined && !test(reviveRegExp(when.lastUserText), facts.lastUserText)) return false;
  if (when.system !== undefined && !test(reviveRegExp(when.system), facts.system)) return false;
  if (when.hasTool !== undefined && !facts.tools.includes(when.hasTool)) return false;
  if (when.noTool !== undefined && facts.tools.includes(when.noTool)) return false;
  return true;
}

/** JSON scripts spell a RegExp as {"regex": "...", "flags": "i"}. */
export function reviveRegExp(p) {
  return p && typeof p === "object" && !(p instanceof RegExp) && typeof p.regex === "string"
    ? new RegExp(p.regex, p.flags ?? "")
    : p;
}

/**
 * An HTTP server on 127.0.0.1 that reads each request's JSON body, records it
 * ({method, path, query, headers, body}) and hands it to `handle(record, res)`; a handler that
 * throws answers 500 with `errorBody(message)`.
 */
export async function startRecordingServer(handle, { port = 0, log = () => {}, errorBody = (m) => ({ error: m }), tls } = {}) {
  const requests = [];
  // `tls` ({key, cert} in PEM): served over HTTPS, for tests of a CA the client must trust.
  const listener = (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = { unparsed: raw };
      }
      const url = new URL(req.url, "http://127.0.0.1");
      const record = { method: req.method, path: url.pathname, query: url.search, headers: req.headers, body };
      requests.push(record);
      log(record);
      Promise.resolve()
        .then(() => handle(record, res))
        .catch((e) => {
          if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify(errorBody(String(e))));
        });
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const bound = server.address().port;
  return {
    port: bound,
    url: `${tls ? "https" : "http"}://127.0.0.1:${bound}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res, status, value, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

export function sseHeaders(headers = {}) {
  return { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...headers };
}

/** `text` cut into pieces of `size` characters (one empty piece for empty text). */
export function chunks(text, size) {
  const out = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

export const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The command-line entry every fake shares:
 *   node fake-X.mjs --script script.json [--port 0] [--log requests.jsonl]
 * prints {"port":N} on stdout, then serves until SIGTERM/SIGINT.
 */
export async function runCli(startFakeApi, argv, defaultScript) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const scriptPath = arg("--script");
  const script = scriptPath ? JSON.parse(fs.readFileSync(scriptPath, "utf8")) : defaultScript;
  const logPath = arg("--log");
  const api = await startFakeApi(script, {
    port: Number(arg("--port") ?? 0),
    log: logPath ? (r) => fs.appendFileSync(logPath, JSON.stringify(r) + "\n") : undefined,
  });
  process.stdout.write(JSON.stringify({ port: api.port }) + "\n");
  const stop = () => api.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
