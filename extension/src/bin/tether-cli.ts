#!/usr/bin/env node
// dist/tether-cli.js: runs an agent (Claude Code, any ACP agent, or an OpenClaw gateway's agent)
// through Tether from a terminal or a script, printing the normalized UI events as NDJSON. The same
// SessionDriver runs the VS Code extension's sessions.

import { readFileSync, rmSync, statSync } from "node:fs";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { agentEntries, BACKENDS, DEFAULT_AGENT, findAgent } from "../backends";
import type { CliFlag, CliSetup, LaunchPlace } from "../backends/backend";
import type { JsonValue } from "../generated/core";
import { NodeHost } from "../node/nodeHost";
import { PERMISSION_MODES, type PermissionAnswer, type PermissionMode, type SessionOp } from "../session/agent";
import type { SessionDriver, TurnOutcome } from "../session/driver";
import type { PermissionRequestEvent, UiEvent } from "../session/events";
import { openSession } from "../session/open";
import { readSettings, type TetherSettings } from "../settings";
import { defaultStateRoot, newStateFolderPath } from "../session/stateFolder";

/** Each backend's own flags (its module's `cli`). */
const BACKEND_FLAGS: [string, CliFlag][] = BACKENDS.flatMap((backend) => Object.entries(backend.cli?.flags ?? {}));

function flagUsage([name, flag]: [string, CliFlag]): string {
  const head = `  --${name}${flag.type === "string" ? " VALUE" : ""}`;
  return `${head.padEnd(27)}${flag.help}${flag.multiple ? " (repeatable)" : ""}`;
}

/** The settings tether-cli starts from: the defaults of \`tether.*\`, no VS Code. */
function defaultSettings(): TetherSettings {
  return readSettings(() => undefined).settings;
}

const USAGE = `Usage: tether-cli run --root DIR (--prompt TEXT | --script FILE) [options]

Runs one agent session through Tether, whose file and shell work happens on --root through
Tether's tools (or, for a gateway's agent, on the workspace Tether offers it). Prints every UI
event as one JSON object per line on stdout; messages go to stderr. Exits 0 when the turns
succeeded, 1 when one failed, 2 on a usage error.

  --root DIR               the workspace (required)
  --prompt TEXT            the user's message
  --script FILE            several steps in one session, a JSON array of
                             {"prompt": TEXT, "interrupt"?: "onPermission" | "onText"}  a turn;
                                 with "interrupt", the turn is stopped at the first permission
                                 prompt (left unanswered) or at its first text (it only has to
                                 end, not succeed)
                             {"mode": MODE} | {"model": NAME}               switch for the next turns
                             {"option": ID, "value": VALUE}                 one of the agent's options
                             {"command": NAME, "args"?: {...}}               a backend command
                                 (OpenClaw: historyOlder, pairNode, connect, disconnect,
                                  canvasAction, canvasRefresh)
                             {"listSessions": true} | {"newSession": true} | {"loadSession": KEY}
                             {"forkSession": KEY | true} | {"closeSession": true}   where offered
                             {"wait": MS}                                    pause
  --mode MODE              ${PERMISSION_MODES.join(", ")}
  --model NAME             the model
  --resume ID              continue a session (the sessionId of an earlier run's events)
  --approve LIST           answer permission prompts: all, none, or a comma-separated list of
                           tools to allow (built-in names, e.g. Read,Edit); an entry always:TOOL
                           answers "always allow". Tools not listed are denied. Without
                           --approve, prompts are asked on the terminal (y/n/a).
  --user-content-file F    approve edits with F's content instead of the model's proposal
  --agent NAME             the agent (default: ${DEFAULT_AGENT}): one of ${agentEntries(defaultSettings())
  .map((e) => e.name)
  .join(", ")}, or one its backend's flags below name
  --agent-option ID=VALUE  set one of the agent's options once the session is open (repeatable),
                           e.g. mode=default
  --mirror DIR             the agent's local working folder (default: --root); a folder other than
                           --root stands for a remote workspace: the agent's own file and shell
                           tools are switched off and its paths under DIR map onto --root
${BACKEND_FLAGS.map(flagUsage).join("\n")}
  --verbose                log the driver's steps to stderr
  -h, --help               show this help

Environment: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and the rest reach the agent as they are.
`;



type Step =
  | { prompt: string; interrupt?: "onPermission" | "onText" }
  | { mode: PermissionMode }
  | { model: string }
  | { option: string; value: string }
  | { command: string; args?: JsonValue }
  | { listSessions: true }
  | { newSession: true }
  | { loadSession: string }
  /** A new session from `forkSession` (an id, or true for the current one), where the agent offers fork. */
  | { forkSession: string | true }
  | { closeSession: true }
  | { wait: number };

interface Approval {
  all: boolean;
  allow: Set<string>;
  always: Set<string>;
  label: string;
}

interface Options {
  root: string;
  mirror?: string;
  steps: Step[];
  mode?: PermissionMode;
  model?: string;
  approval?: Approval;
  userContent?: string;
  agentOptions: [string, string][];
  /** The agent, the settings and the place the flags give (the backends' flags among them). */
  setup: CliSetup;
  verbose: boolean;
}

function say(message: string): void {
  process.stderr.write(`tether-cli: ${message}\n`);
}

function usageError(message: string): never {
  say(message);
  process.stderr.write("Run with --help for usage.\n");
  process.exit(2);
}

function directory(flag: string, value: string): string {
  const resolved = path.resolve(value);
  let isDirectory = false;
  try {
    isDirectory = statSync(resolved).isDirectory();
  } catch {
    usageError(`${flag} ${resolved} does not exist.`);
  }
  if (!isDirectory) usageError(`${flag} ${resolved} is not a directory.`);
  return resolved;
}

function parseMode(flag: string, value: string): PermissionMode {
  if (!(PERMISSION_MODES as readonly string[]).includes(value)) usageError(`${flag} ${value}: expected one of ${PERMISSION_MODES.join(", ")}.`);
  return value as PermissionMode;
}

function parseApproval(spec: string): Approval {
  const approval: Approval = { all: false, allow: new Set(), always: new Set(), label: spec };
  if (spec === "all") return { ...approval, all: true };
  if (spec === "none") return approval;
  for (const entry of spec.split(",").map((e) => e.trim()).filter(Boolean)) {
    if (entry.startsWith("always:")) approval.always.add(entry.slice("always:".length));
    else approval.allow.add(entry);
  }
  if (approval.allow.size + approval.always.size === 0) usageError(`--approve ${spec}: expected all, none or a list of tools.`);
  return approval;
}

function parseScript(file: string): Step[] {
  let steps: unknown;
  try {
    steps = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    usageError(`--script ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(steps) || steps.length === 0) usageError(`--script ${file}: expected a non-empty JSON array of steps.`);
  return steps.map((step: unknown, index): Step => {
    const s = (step ?? {}) as Record<string, unknown>;
    if (typeof s["prompt"] === "string") {
      const interrupt = s["interrupt"];
      if (interrupt !== undefined && interrupt !== "onPermission" && interrupt !== "onText") {
        usageError(`--script step ${index}: "interrupt" can only be "onPermission" or "onText".`);
      }
      return interrupt ? { prompt: s["prompt"], interrupt } : { prompt: s["prompt"] };
    }
    if (typeof s["mode"] === "string") return { mode: parseMode(`--script step ${index} mode`, s["mode"]) };
    if (typeof s["model"] === "string") return { model: s["model"] };
    if (typeof s["option"] === "string" && typeof s["value"] === "string") return { option: s["option"], value: s["value"] };
    // The script is JSON: its args are JSON values.
    if (typeof s["command"] === "string") return { command: s["command"], args: (s["args"] ?? {}) as JsonValue };
    if (s["listSessions"] === true) return { listSessions: true };
    if (s["newSession"] === true) return { newSession: true };
    if (typeof s["loadSession"] === "string") return { loadSession: s["loadSession"] };
    if (typeof s["forkSession"] === "string" || s["forkSession"] === true) return { forkSession: s["forkSession"] };
    if (s["closeSession"] === true) return { closeSession: true };
    if (typeof s["wait"] === "number") return { wait: s["wait"] };
    usageError(
      `--script step ${index}: expected {"prompt"}, {"mode"}, {"model"}, {"option", "value"}, {"command"}, {"listSessions"}, {"newSession"}, {"loadSession"}, {"forkSession"}, {"closeSession"} or {"wait"}.`,
    );
  });
}

function parseCommandLine(): Options {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        root: { type: "string" },
        prompt: { type: "string" },
        script: { type: "string" },
        mode: { type: "string" },
        model: { type: "string" },
        resume: { type: "string" },
        approve: { type: "string" },
        "user-content-file": { type: "string" },
        agent: { type: "string" },
        "agent-option": { type: "string", multiple: true },
        mirror: { type: "string" },
        ...Object.fromEntries(BACKEND_FLAGS.map(([name, flag]) => [name, flag.multiple ? { type: flag.type, multiple: true as const } : { type: flag.type }])),
        verbose: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (positionals[0] !== "run" || positionals.length > 1) usageError(positionals.length ? `unknown command ${positionals.join(" ")}; expected run.` : "expected the command run.");
  if (!values.root) usageError("--root DIR is required: the workspace.");
  if ((values.prompt === undefined) === (values.script === undefined)) usageError("give exactly one of --prompt TEXT and --script FILE.");
  let userContent: string | undefined;
  if (values["user-content-file"] !== undefined) {
    try {
      userContent = readFileSync(values["user-content-file"], "utf8");
    } catch (error) {
      usageError(`--user-content-file: ${(error as Error).message}`);
    }
  }
  // Tether's own files for an agent's launch (gemini's policy and settings) live here: a private
  // folder under the user's state folder, never the temp folder (see session/stateFolder.ts),
  // made only by a backend that writes such files.
  const storageDir = newStateFolderPath(defaultStateRoot(), "cli-");
  // Tether's own files for the agent's launch (gemini's settings), gone with the run.
  process.on("exit", () => rmSync(storageDir, { recursive: true, force: true }));
  const setup: CliSetup = { agent: values.agent, settings: defaultSettings(), place: { storageDir, secrets: memorySecrets() }, usageError };
  for (const backend of BACKENDS) backend.cli?.apply(values as Record<string, unknown>, setup);
  const options: Options = {
    root: directory("--root", values.root),
    steps: values.script !== undefined ? parseScript(values.script) : [{ prompt: values.prompt ?? "" }],
    agentOptions: (values["agent-option"] ?? []).map((spec) => pair("--agent-option", spec)),
    setup,
    verbose: values.verbose,
  };
  if (values.resume !== undefined) setup.resume = values.resume;
  if (values.mirror !== undefined) options.mirror = directory("--mirror", values.mirror);
  if (values.mode !== undefined) options.mode = parseMode("--mode", values.mode);
  if (values.model !== undefined) options.model = values.model;
  if (values.approve !== undefined) options.approval = parseApproval(values.approve);
  if (userContent !== undefined) options.userContent = userContent;
  return options;
}

function pair(flag: string, spec: string): [string, string] {
  const at = spec.indexOf("=");
  if (at <= 0) usageError(`${flag} ${spec}: expected NAME=VALUE.`);
  return [spec.slice(0, at), spec.slice(at + 1)];
}

/** Secrets kept for the run only (a backend's flags may put a file in front). */
function memorySecrets(): LaunchPlace["secrets"] {
  const values = new Map<string, string>();
  return {
    get: async (name) => values.get(name),
    store: async (name, value) => void values.set(name, value),
    delete: async (name) => void values.delete(name),
  };
}

function describeRequest(request: PermissionRequestEvent): string {
  const input = request.input as Record<string, unknown>;
  const target = [request.review?.path, input["file_path"], input["notebook_path"], input["command"], input["pattern"]].find((v) => typeof v === "string");
  const what = (target as string | undefined) ?? request.title ?? request.description ?? request.displayName ?? request.toolName;
  const who = request.agentId ? ` (subagent ${request.agentId})` : "";
  return `${request.toolName}: ${what}${who}`;
}

/** Answers from --approve. */
function approve(approval: Approval, request: PermissionRequestEvent): PermissionAnswer {
  if (approval.always.has(request.toolName)) return { decision: "always" };
  if (approval.all || approval.allow.has(request.toolName)) return { decision: "allow" };
  return { decision: "deny", reason: `Denied by tether-cli --approve ${approval.label}.` };
}

/** Asks on the terminal; a withdrawn question (an interrupt) closes the prompt. */
function askOnTerminal(request: PermissionRequestEvent, signal: AbortSignal): Promise<PermissionAnswer> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const always = request.suppressAlwaysAllow ? "" : `, a = always${request.alwaysLabel ? ` (${request.alwaysLabel})` : ""}`;
    const reason = request.reason ?? request.decisionReason;
    const finish = (answer: PermissionAnswer): void => {
      rl.close();
      resolve(answer);
    };
    signal.addEventListener("abort", () => {
      process.stderr.write("\n(withdrawn)\n");
      finish({ decision: "deny", reason: "Withdrawn." });
    });
    const ask = (): void => {
      rl.question(`Allow ${describeRequest(request)}${reason ? ` [${reason}]` : ""}? (y = yes, n = no${always}) `, (reply) => {
        const r = reply.trim().toLowerCase();
        if (r === "y" || r === "yes") finish({ decision: "allow" });
        else if (r === "n" || r === "no") finish({ decision: "deny", reason: "The user said no." });
        else if (always && (r === "a" || r === "always")) finish({ decision: "always" });
        else ask();
      });
    };
    ask();
  });
}

async function main(): Promise<number> {
  const options = parseCommandLine();
  const approval = options.approval;
  const interactive = !approval && process.stdin.isTTY === true;
  const host = new NodeHost();
  let interruptOnPermission = false;
  let interruptOnText = false;
  let driver: SessionDriver | undefined;

  const onEvent = (event: UiEvent): void => {
    process.stdout.write(JSON.stringify(event) + "\n");
    if (event.type === "connectionState" && event.state === "error") say(`${event.channel}: ${event.message ?? "connection error"}`);
    if (interruptOnText && event.type === "textDelta") {
      interruptOnText = false;
      say("interrupting at the turn's first text");
      setImmediate(() => driver?.operate({ op: "interrupt" }));
    }
  };
  const onPermission = async (request: PermissionRequestEvent, signal: AbortSignal): Promise<PermissionAnswer> => {
    if (interruptOnPermission) {
      // Leave it open and stop the turn: the CLI withdraws the question itself.
      interruptOnPermission = false;
      say(`interrupting at the prompt for ${describeRequest(request)}`);
      // Not from inside the driver's event dispatch: let it finish first.
      setImmediate(() => driver?.operate({ op: "interrupt" }));
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ decision: "deny", reason: "Withdrawn." })));
    }
    let answer: PermissionAnswer;
    if (approval) answer = approve(approval, request);
    else if (interactive) answer = await askOnTerminal(request, signal);
    else answer = { decision: "deny", reason: "tether-cli had no --approve and no terminal to ask on." };
    if (answer.decision !== "deny" && request.review && options.userContent !== undefined) answer.userContent = options.userContent;
    say(`${describeRequest(request)} → ${answer.decision}${answer.userContent !== undefined ? " (with the user's content)" : ""}`);
    return answer;
  };

  const { setup } = options;
  const entries = agentEntries(setup.settings);
  const entry = findAgent(entries, setup.agent ?? DEFAULT_AGENT);
  if (!entry) usageError(`--agent ${setup.agent}: no such agent; use one of ${entries.map((e) => e.name).join(", ")}.`);
  const log = options.verbose ? (message: string) => say(message) : () => undefined;
  process.on("exit", () => host.dispose());
  let interrupts = 0;
  process.on("SIGINT", () => {
    // First Ctrl-C stops the turn, the second ends the session.
    if (++interrupts === 1 && driver?.running) {
      say("interrupting (press Ctrl-C again to quit)");
      driver.operate({ op: "interrupt" });
    } else {
      void driver?.stop().finally(() => process.exit(130));
    }
  });
  process.on("SIGTERM", () => void driver?.stop().finally(() => process.exit(143)));

  try {
    driver = await openSession(
      entry,
      {
        host,
        root: options.root,
        ...(options.mirror !== undefined ? { mirror: options.mirror } : {}),
        ...(setup.resume !== undefined ? { resume: setup.resume } : {}),
        settings: setup.settings,
        place: setup.place,
        log,
      },
      { ...(options.mode !== undefined ? { mode: options.mode } : {}), ...(options.model !== undefined ? { model: options.model } : {}), onEvent, onPermission },
    );
  } catch (error) {
    say((error as Error).message);
    return 1;
  }
  for (const [option, value] of options.agentOptions) {
    try {
      driver.operate({ op: "setConfigOption", option, value });
    } catch (error) {
      say(`--agent-option ${option}: ${(error as Error).message}`);
      await driver.stop();
      return 1;
    }
  }

  let failed: string | undefined;
  for (const step of options.steps) {
    let op: SessionOp | undefined;
    try {
      op = stepOperation(step, driver.sessionId);
      if (op) driver.operate(op);
    } catch (error) {
      failed = `script step: ${(error as Error).message}`;
      break;
    }
    if (op) continue;
    if ("wait" in step) {
      await new Promise((resolve) => setTimeout(resolve, step.wait));
      continue;
    }
    if (!("prompt" in step)) continue;
    interruptOnPermission = step.interrupt === "onPermission";
    interruptOnText = step.interrupt === "onText";
    const outcome: TurnOutcome = await driver.prompt(step.prompt);
    interruptOnPermission = false;
    interruptOnText = false;
    if (!driver.running) {
      failed = outcome.error?.message ?? `${entry.displayName} exited`;
      if (outcome.error?.hint) failed += `\n${outcome.error.hint}`;
      break;
    }
    if (!outcome.ok && !step.interrupt) failed = turnFailure(outcome);
  }
  await driver.stop();
  if (failed !== undefined) {
    say(`the turn failed: ${failed}`);
    return 1;
  }
  return 0;
}

/** The session operation a script step is, if it is one. */
function stepOperation(step: Step, current: string | null): SessionOp | undefined {
  if ("mode" in step) return { op: "setMode", mode: step.mode };
  if ("model" in step) return { op: "setConfigOption", option: "model", value: step.model };
  if ("option" in step) return { op: "setConfigOption", option: step.option, value: step.value };
  if ("command" in step) return { op: "command", name: step.command, args: step.args ?? {} };
  if ("listSessions" in step) return { op: "list" };
  if ("newSession" in step) return { op: "new" };
  if ("loadSession" in step) return { op: "load", id: step.loadSession };
  if ("forkSession" in step) {
    const id = step.forkSession === true ? current : step.forkSession;
    if (!id) throw new Error("forkSession: no session to fork yet");
    return { op: "fork", id };
  }
  if ("closeSession" in step) return { op: "close" };
  return undefined;
}

function turnFailure(outcome: TurnOutcome): string {
  const parts = [outcome.done ? `${outcome.done.subtype}${outcome.done.result ? `: ${outcome.done.result}` : ""}` : undefined, outcome.error?.message];
  return parts.filter(Boolean).join("; ") || "no result";
}

main().then(
  (code) => {
    // Let stdout drain before leaving.
    process.stdout.write("", () => process.exit(code));
  },
  (error: unknown) => {
    say(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
