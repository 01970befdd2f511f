// Typed reading of the `tether.*` settings. Pure: it takes any `get(key)` source, so tests run it
// without VS Code (the extension passes `workspace.getConfiguration("tether").get`).

import { DEFAULT_AGENT } from "./backends";
import { PERMISSION_MODES, type PermissionMode } from "./generated/core";

export interface TetherSettings {
  /** Empty: find `claude` on PATH and in the usual install places. */
  claudePath: string;
  /** The agent new sessions start with (a name in the agent registry). */
  agent: string;
  /** `tether.agents`: the user's ACP agents, and changes to the built-in ones. */
  agents: Record<string, AgentSetting>;
  defaultMode: PermissionMode;
  /** Empty: the CLI's default model. */
  model: string;
  allowedTools: string[];
  disallowedTools: string[];
  environment: Record<string, string>;
  /** Where a remote workspace's commands run: "auto" picks the best tier that works. */
  remoteExecutor: RemoteExecutorSetting;
  /** The OpenClaw gateway (its token lives in SecretStorage, not here). */
  openclaw: { gatewayUrl: string; offerWorkspace: boolean };
  /** Checkpoints (before-images on the workspace side): on or off, and how far back they reach. */
  checkpoints: { enabled: boolean; keepMessages: number; keepSessions: number };
  /** The user's own hooks (~/.claude/settings.json) run on the workspace too; absent: only the
   * project's. */
  hooks?: { user: boolean };
  /** Which key sends the composer's message (the other one starts a new line). */
  sendWith: SendKey;
}

export const SEND_KEYS = ["enter", "shiftEnter"] as const;
export type SendKey = (typeof SEND_KEYS)[number];

/** One `tether.agents` entry as the user writes it. */
export interface AgentSetting {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  displayName?: string;
  profile?: string;
  allowLocalTools?: boolean;
}

/** `tether.agents` read leniently: bad entries are left out and reported. */
export function readAgentSettings(value: unknown): { agents: Record<string, AgentSetting>; problems: string[] } {
  const agents: Record<string, AgentSetting> = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { agents, problems };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { agents, problems: ["tether.agents must be an object of agent name → {command, args, env}"] };
  }
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const bad = (why: string) => problems.push(`tether.agents.${name} ${why}; left out`);
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      bad("must be an object");
      continue;
    }
    const entry = raw as Record<string, unknown>;
    if (entry["command"] !== undefined && typeof entry["command"] !== "string") {
      bad("has a command that is not a string");
      continue;
    }
    if (entry["args"] !== undefined && !strings(entry["args"])) {
      bad("has args that are not a list of strings");
      continue;
    }
    const env = entry["env"];
    if (env !== undefined && (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string"))) {
      bad("has an env that is not an object of strings");
      continue;
    }
    const setting: AgentSetting = {};
    if (typeof entry["command"] === "string") setting.command = entry["command"];
    if (strings(entry["args"])) setting.args = entry["args"];
    if (env) setting.env = env as Record<string, string>;
    if (typeof entry["displayName"] === "string") setting.displayName = entry["displayName"];
    if (typeof entry["profile"] === "string") setting.profile = entry["profile"];
    if (entry["allowLocalTools"] === true) setting.allowLocalTools = true;
    agents[name] = setting;
  }
  return { agents, problems };
}

export const REMOTE_EXECUTORS = ["auto", "helper", "shellIntegration", "terminal"] as const;
export type RemoteExecutorSetting = (typeof REMOTE_EXECUTORS)[number];

export interface SettingsProblem {
  key: string;
  message: string;
}

export type SettingsSource = (key: string) => unknown;

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every((item) => typeof item === "string") ? value.map((item: string) => item.trim()).filter(Boolean) : undefined;
}

/** Reads every setting; a value of the wrong type falls back to the default and is reported. */
export function readSettings(get: SettingsSource): { settings: TetherSettings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const bad = (key: string, expected: string) =>
    problems.push({ key: `tether.${key}`, message: `tether.${key} must be ${expected}; using the default` });

  const text = (key: string): string => {
    const value = get(key);
    if (value === undefined || value === null) return "";
    if (typeof value !== "string") {
      bad(key, "a string");
      return "";
    }
    return value.trim();
  };
  const list = (key: string): string[] => {
    const value = get(key);
    if (value === undefined || value === null) return [];
    const items = stringList(value);
    if (!items) bad(key, "a list of strings");
    return items ?? [];
  };

  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const value = get(key);
    if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
    if (value !== undefined && value !== null && value !== "") bad(key, `one of ${allowed.join(", ")}`);
    return fallback;
  };
  const defaultMode = oneOf<PermissionMode>("defaultMode", PERMISSION_MODES, "default");
  const remoteExecutor = oneOf<RemoteExecutorSetting>("remoteExecutor", REMOTE_EXECUTORS, "auto");
  const sendWith = oneOf<SendKey>("sendWith", SEND_KEYS, "enter");

  const environment: Record<string, string> = {};
  const envValue = get("environment");
  if (envValue !== undefined && envValue !== null) {
    if (typeof envValue !== "object" || Array.isArray(envValue)) {
      bad("environment", "an object of name → string value");
    } else {
      for (const [name, value] of Object.entries(envValue as Record<string, unknown>)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
          problems.push({ key: "tether.environment", message: `tether.environment: "${name}" is not a variable name; skipped` });
        } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
          environment[name] = String(value);
        } else {
          problems.push({ key: "tether.environment", message: `tether.environment.${name} must be a string; skipped` });
        }
      }
    }
  }

  let gatewayUrl = text("openclaw.gatewayUrl");
  if (gatewayUrl && !/^wss?:\/\//.test(gatewayUrl)) {
    problems.push({ key: "tether.openclaw.gatewayUrl", message: `tether.openclaw.gatewayUrl ${gatewayUrl} must be a ws:// or wss:// URL; ignored` });
    gatewayUrl = "";
  }

  const count = (key: string, fallback: number): number => {
    const value = get(key);
    if (typeof value === "number" && Number.isInteger(value) && value >= 1) return value;
    if (value !== undefined && value !== null) bad(key, "a whole number of at least 1");
    return fallback;
  };

  const agents = readAgentSettings(get("agents"));
  for (const message of agents.problems) problems.push({ key: "tether.agents", message });

  return {
    settings: {
      claudePath: text("claudePath"),
      agent: text("agent") || DEFAULT_AGENT,
      agents: agents.agents,
      defaultMode,
      model: text("model"),
      allowedTools: list("allowedTools"),
      disallowedTools: list("disallowedTools"),
      environment,
      remoteExecutor,
      openclaw: { gatewayUrl, offerWorkspace: get("openclaw.offerWorkspace") === true },
      sendWith,
      checkpoints: {
        enabled: get("checkpoints.enabled") !== false,
        keepMessages: count("checkpoints.keepMessages", 100),
        keepSessions: count("checkpoints.keepSessions", 20),
      },
      ...(get("hooks.user") === true ? { hooks: { user: true } } : {}),
    },
    problems,
  };
}
