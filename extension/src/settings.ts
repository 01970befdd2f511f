// Typed reading of the `tether.*` settings. Pure: it takes any `get(key)` source, so tests run it
// without VS Code (the extension passes `workspace.getConfiguration("tether").get`).

import { DEFAULT_AGENT, readAgentSettings, type AgentSetting } from "./agents/registry";
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
}

/** The gateway's HTTP origin (`ws://h:p/x` → `http://h:p`, `wss` → `https`), where its board
 * widgets' pages are served; undefined without a gateway. */
export function gatewayHttpOrigin(gatewayUrl: string): string | undefined {
  if (!gatewayUrl) return undefined;
  try {
    const url = new URL(gatewayUrl);
    const scheme = url.protocol === "wss:" ? "https:" : url.protocol === "ws:" ? "http:" : undefined;
    return scheme ? `${scheme}//${url.host}` : undefined;
  } catch {
    return undefined;
  }
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
    },
    problems,
  };
}
