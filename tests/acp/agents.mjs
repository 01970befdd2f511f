// The three real ACP agents as tests/acp/agents.test.mjs drives them offline: how each is launched
// against its fake model API, the switches that turn its own file and shell tools off
// ("force-local": everything goes through Tether's tools, over the MCP bridge), how its model calls
// a tool, and how its tool calls and requests look. The findings behind each switch are in
// tests/acp/README.md.
//
// Entry scripts come from build.sh (ensure_acp_agents): TETHER_ACP_CLAUDE_AGENT, TETHER_ACP_GEMINI,
// TETHER_ACP_CODEX; claude-agent-acp also runs the pinned Claude Code (TETHER_CLAUDE_PATH).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeApi } from "../fake-api/fake-anthropic.mjs";
import { startFakeGemini } from "../fake-api/fake-gemini.mjs";
import { startFakeOpenAi } from "../fake-api/fake-openai.mjs";

/** Tether's tools (tools::TOOL_NAMES in the core). */
export const TETHER_TOOLS = ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS", "Bash", "BashOutput", "KillShell"];
/** claude-agent-acp's built-ins that touch no disk and run no command: kept (the core's
 * claude::launch::ALLOWED_BUILTIN_TOOLS, what Claude Code's backend keeps, and the SDK's todo list
 * tools, acp::profile's TASK_LIST_TOOLS). */
export const CLAUDE_KEPT_TOOLS = [
  "Agent", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "ListAgents", "SendMessage", "Skill", "TaskStop", "ToolSearch", "TodoWrite", "WebFetch", "WebSearch",
  "TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
];
/** Its built-ins that would read, write or run on the laptop: denied as well (disallowed_builtin_tools). */
export const CLAUDE_DENIED_TOOLS = [...TETHER_TOOLS, "Monitor", "PowerShell", "EnterWorktree", "ExitWorktree"];
/** gemini-cli's own tools that touch no disk and run no command: kept in tools.core. */
export const GEMINI_KEPT_TOOLS = ["google_web_search", "web_fetch", "write_todos"];
/** The MCP server name the agents see Tether's tools under. */
export const SERVER = "tether";

const allowOnce = (options) => options.find((o) => o.kind === "allow_once")?.optionId;
const rejectOnce = (options) => options.find((o) => o.kind === "reject_once")?.optionId;

/** claude-agent-acp 0.101.0 running the pinned Claude Code CLI. */
export const claudeAgent = {
  name: "claude-agent-acp",
  entryEnv: "TETHER_ACP_CLAUDE_AGENT",
  extraEnv: ["TETHER_CLAUDE_PATH"],
  startApi: startFakeApi,
  /** A model call of Tether's tool `name`. */
  tetherTool: (name, input) => ({ name: `mcp__${SERVER}__${name}`, input }),
  /** The agent's own write and shell tools, which force-local must have removed. */
  builtinTools: (mirror) => [
    { name: "Write", input: { file_path: join(mirror, "builtin.txt"), content: "written by the agent itself\n" } },
    { name: "Bash", input: { command: "echo local > local.txt" } },
  ],
  builtinRefused: /No such tool available: (Write|Bash)/,
  launch({ home, tmp, api }) {
    return {
      command: process.execPath,
      args: [process.env.TETHER_ACP_CLAUDE_AGENT],
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: tmp,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: "dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Bash and subagent output files, and its sockets, go here instead of /tmp.
        CLAUDE_CODE_TMPDIR: tmp,
        // The SDK's bundled native CLI is not installed (build.sh); run the pinned one.
        CLAUDE_CODE_EXECUTABLE: process.env.TETHER_CLAUDE_PATH,
        // No "# Memory" section telling the model to Write under ~/.claude.
        CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
      },
    };
  },
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: false }, _meta: { terminal_output: true } },
  /** Force-local: only the built-ins that touch no disk (subagents get the same lists). Not
   * remembered: sent again on load/resume. */
  sessionMeta: { claudeCode: { options: { tools: CLAUDE_KEPT_TOOLS, disallowedTools: CLAUDE_DENIED_TOOLS, promptSuggestions: false } } },
  /** The initial mode is `auto`, whose classifier cannot work against a fake API. */
  async afterSession(agent, sessionId) {
    await agent.request("session/set_mode", { sessionId, modeId: "default" });
  },
  isTetherCall: (toolCall) => String(toolCall?._meta?.claudeCode?.toolName ?? toolCall?.title ?? "").startsWith(`mcp__${SERVER}__`),
  answerPermission: (params) => allowOnce(params.options),
  /** Tool names offered in the model requests (the title request offers none). */
  offeredTools: (api) => [...new Set(api.messageRequests().flatMap((r) => (r.body?.tools ?? []).map((t) => t.name)))],
};

/** The admin policy Tether gives gemini-cli (profile.rs `gemini_policy`): Tether's tools and
 * gemini's own that touch no disk, nothing else. */
export function geminiPolicy() {
  const names = [...TETHER_TOOLS.map((tool) => `mcp_${SERVER}_${tool}`), ...GEMINI_KEPT_TOOLS];
  return `[[rule]]\ntoolName = ${JSON.stringify(names)}\ndecision = "allow"\npriority = 999\n\n[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 998\n`;
}

/** gemini-cli 0.61.0 in ACP mode. */
export const gemini = {
  name: "gemini-cli",
  entryEnv: "TETHER_ACP_GEMINI",
  extraEnv: [],
  startApi: startFakeGemini,
  tetherTool: (name, input) => ({ name: `mcp_${SERVER}_${name}`, input }),
  builtinTools: (mirror) => [
    { name: "write_file", input: { file_path: join(mirror, "builtin.txt"), content: "written by the agent itself\n" } },
    { name: "run_shell_command", input: { command: "echo local > local.txt" } },
  ],
  builtinRefused: /Tool "(write_file|run_shell_command)" not found in registry/,
  /**
   * `policyDir`: close it as Tether does, with an admin policy there allowing Tether's tools and
   * denying every other (the raw tests). Nothing goes into the agent's HOME: settings there would
   * close it whatever Tether does (through tether-cli the policy is Tether's own).
   */
  launch({ home, tmp, api, policyDir }) {
    const args = [process.env.TETHER_ACP_GEMINI, "--acp", "--skip-trust"];
    if (policyDir) {
      mkdirSync(policyDir, { recursive: true, mode: 0o700 });
      writeFileSync(join(policyDir, "tether.toml"), geminiPolicy());
      args.push("--admin-policy", policyDir);
    }
    return {
      command: process.execPath,
      args,
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: tmp, GEMINI_API_KEY: "fake", GOOGLE_GEMINI_BASE_URL: api.url },
    };
  },
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: false } },
  sessionMeta: undefined,
  afterSession: async () => {},
  isTetherCall: (toolCall) => String(toolCall?.toolCallId ?? "").startsWith(`mcp_${SERVER}_`),
  answerPermission: (params) => allowOnce(params.options),
  offeredTools: (api) => [
    ...new Set(api.turnRequests().flatMap((r) => (r.body?.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)))),
  ],
};

/**
 * codex-acp 2.6.0 (codex 0.166.0) with `model`: a model of codex's catalog keeps apply_patch
 * whatever the features say; an unknown slug drops it.
 */
export function codex(model) {
  return {
    name: `codex-acp (${model})`,
    entryEnv: "TETHER_ACP_CODEX",
    extraEnv: [],
    startApi: startFakeOpenAi,
    tetherTool: (name, input) => ({ namespace: `mcp__${SERVER}`, name, input }),
    builtinTools: () => [
      { name: "exec_command", input: { cmd: "echo local > local.txt" } },
      { name: "shell", input: { command: ["bash", "-lc", "echo local > local.txt"] } },
    ],
    builtinRefused: /unsupported call: (exec_command|shell)/,
    launch({ home, tmp, api }) {
      mkdirSync(join(home, ".codex"), { recursive: true });
      const config = {
        model_provider: "fake",
        model,
        model_providers: { fake: { name: "fake", base_url: `${api.url}/v1`, env_key: "OPENAI_API_KEY", wire_api: "responses" } },
        // Force-local, as far as it goes: its shells and the rest of its own local tools off (its
        // web search, a tool of the model's API, stays).
        features: { shell_tool: false, unified_exec: false, view_image: false, multi_agent: false, goals: false },
      };
      return {
        command: process.execPath,
        args: [process.env.TETHER_ACP_CODEX],
        env: {
          PATH: process.env.PATH,
          HOME: home,
          TMPDIR: tmp,
          CODEX_HOME: join(home, ".codex"),
          OPENAI_API_KEY: "fake",
          // The default mode sends approvals to a guardian model request; read-only asks the
          // client (apply_patch) and its sandbox keeps anything else read-only.
          INITIAL_AGENT_MODE: "read-only",
          CODEX_CONFIG: JSON.stringify(config),
        },
      };
    },
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, auth: { terminal: false }, _meta: { terminal_output: true } },
    sessionMeta: undefined,
    afterSession: async () => {},
    isTetherCall: (toolCall) => toolCall?.rawInput?.server === SERVER || String(toolCall?.title ?? "").startsWith(`mcp.${SERVER}.`),
    /** Tether's tools are allowed; anything else the agent wants to run itself (apply_patch) is refused. */
    answerPermission(params) {
      return this.isTetherCall(params.toolCall) ? allowOnce(params.options) : rejectOnce(params.options);
    },
    offeredTools: (api) => [
      ...new Set(api.turnRequests().flatMap((r) => (r.body?.tools ?? []).flatMap((t) => (t.tools ? t.tools.map((i) => `${t.name}__${i.name}`) : [t.name ?? t.type])))),
    ],
  };
}
