// The OpenClaw backend's module: a gateway's agent over the WebSockets the core steers (no program
// to start), with Tether's device keys, the token the user stored, and, when the settings say so,
// the workspace offered as the gateway's node. Its sessions are the gateway's own.

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { CONNECTED_BACKENDS, type AgentConfig, type BackoffConfig } from "../../generated/core";
import type { BackendModule, Connector } from "../backend";
import { gatewaySecretName, loadCredentials } from "./credentials";
import { FileSecretStore, type SecretStore } from "./deviceKey";
import { GatewayTransport } from "./gatewayTransport";

/** The SecretStorage key of the gateway token (set with "Tether: Set OpenClaw Gateway Token"). */
export const OPENCLAW_TOKEN_SECRET = "tether.openclaw.gatewayToken";

/** A gateway needs no program to end: closing its sockets is immediate. */
const STOP_GRACE_MS = 5000;

/** The gateway and what Tether keeps for it. */
export interface GatewayOptions {
  /** ws:// or wss://. */
  url: string;
  /** The gateway's shared token. */
  token?: string;
  /** Where the device keys and the tokens the gateway issues are kept. */
  secrets: SecretStore;
  /** Offer the workspace as the gateway's node (its exec and file_fetch then act there). */
  node?: { displayName?: string; platform?: string };
  backoff?: BackoffConfig;
  clientVersion?: string;
}

/** The connector of one session with a gateway (the suites make one with their own options). */
export function gatewayConnector(displayName: string, gateway: GatewayOptions): Connector {
  const { url, node } = gateway;
  let transport: GatewayTransport | undefined;
  let keys: Awaited<ReturnType<typeof loadCredentials>> | undefined;
  return {
    label: { displayName, command: "openclaw" },
    stopGraceMs: STOP_GRACE_MS,
    async config(common): Promise<AgentConfig> {
      keys = await loadCredentials(gateway.secrets, url, node !== undefined);
      const { operatorKey, nodeKey } = keys;
      return {
        ...common,
        backend: "openclaw",
        gatewayUrl: url,
        instanceId: randomUUID(),
        device: operatorKey.identity,
        ...(gateway.token ? { token: gateway.token } : {}),
        ...(keys.deviceToken ? { deviceToken: keys.deviceToken } : {}),
        ...(gateway.backoff ? { backoff: gateway.backoff } : {}),
        ...(gateway.clientVersion ? { clientVersion: gateway.clientVersion } : {}),
        ...(nodeKey && node ? { node: { device: nodeKey.identity, ...(keys.nodeDeviceToken ? { deviceToken: keys.nodeDeviceToken } : {}), ...node } } : {}),
      };
    },
    async connect(agent, session) {
      const { operatorKey, nodeKey } = keys!;
      transport = new GatewayTransport({
        keys: { gateway: operatorKey, ...(nodeKey ? { node: nodeKey } : {}) },
        secrets: gateway.secrets,
        secretName: (name) => gatewaySecretName(url, name),
        log: session.log,
      });
      session.log(`connecting to the ${displayName} gateway at ${url}${nodeKey ? " (offering the workspace as its node)" : ""}`);
      transport.onTransportEvent((event) => session.run("handling the gateway connection", agent.onTransport(event)));
      transport.onWake(() => session.run("handling a timer", agent.wake()));
      return transport;
    },
    deliver(output) {
      if (output.type === "transport") transport?.carry(output.request);
    },
  };
}

export const openclawBackend: BackendModule<null> = {
  agents: () => [{ name: "openclaw", displayName: CONNECTED_BACKENDS.openclaw.displayName, backend: openclawBackend, spec: null }],

  async connector(entry, request) {
    const { settings, place } = request;
    const url = settings.openclaw.gatewayUrl;
    if (!url) throw new Error(`${entry.displayName} needs a gateway: set tether.openclaw.gatewayUrl (ws://host:18789)`);
    // The stored token first; else the one the gateway's own CLI reads (a gateway started from this shell).
    const token = (await place.secrets.get(OPENCLAW_TOKEN_SECRET)) ?? (process.env["OPENCLAW_GATEWAY_TOKEN"]?.trim() || undefined);
    const offer = settings.openclaw.offerWorkspace;
    request.log(`connecting to the OpenClaw gateway at ${url}${offer ? `, offering ${request.root} as its node` : ""}${request.resume ? ` (session ${request.resume})` : ""}`);
    return gatewayConnector(entry.displayName, {
      url,
      ...(token ? { token } : {}),
      secrets: place.secrets,
      ...(offer ? { node: { displayName: `Tether (${path.basename(request.root)})`, platform: nodePlatform() } } : {}),
    });
  },

  history: { kind: "agent" },

  cli: {
    flags: {
      gateway: { type: "string", help: "the gateway (ws:// or wss://)" },
      "token-file": { type: "string", help: "the gateway's token (default: $OPENCLAW_GATEWAY_TOKEN)" },
      "device-key": {
        type: "string",
        help: "where Tether keeps its device keys and the tokens the gateway issues (a JSON file only the user can read; made if missing)",
      },
      session: { type: "string", help: "the gateway session to continue (default: a new one)" },
      node: { type: "boolean", help: "offer --root as the gateway's node, so its agent's exec and file_fetch act there (each behind Tether's permission prompts)" },
    },
    apply(values, setup) {
      const url = values["gateway"] as string | undefined;
      const given = ["gateway", "token-file", "device-key", "session"].filter((flag) => values[flag] !== undefined);
      if (values["node"] === true) given.push("node");
      if (setup.agent !== "openclaw") {
        if (given.length) setup.usageError(`--${given[0]} is for --agent openclaw.`);
        return;
      }
      if (!url) return setup.usageError("--agent openclaw needs --gateway URL.");
      if (!/^wss?:\/\//.test(url)) setup.usageError(`--gateway ${url}: expected a ws:// or wss:// URL.`);
      let token: string | undefined;
      const tokenFile = values["token-file"] as string | undefined;
      if (tokenFile !== undefined) {
        try {
          token = readFileSync(tokenFile, "utf8").trim();
        } catch (error) {
          return setup.usageError(`--token-file: ${(error as Error).message}`);
        }
        if (!token) setup.usageError(`--token-file ${tokenFile} is empty.`);
      }
      const keyFile = values["device-key"] as string | undefined;
      if (!keyFile) return setup.usageError("--agent openclaw needs --device-key FILE: where Tether keeps its device keys for the gateway.");
      if (typeof values["session"] === "string") setup.resume = values["session"];
      setup.settings.openclaw = { gatewayUrl: url, offerWorkspace: values["node"] === true };
      setup.place = { ...setup.place, secrets: withToken(new FileSecretStore(path.resolve(keyFile)), token) };
    },
  },

  commands: [
    {
      id: "tether.setOpenClawToken",
      async run(api) {
        const token = await api.askSecret("OpenClaw gateway token", "The gateway's token (gateway.auth.token). Kept in VS Code's SecretStorage. Leave empty to remove it.");
        if (token === undefined) return;
        if (token.trim()) await api.secrets.store(OPENCLAW_TOKEN_SECRET, token.trim());
        else await api.secrets.delete(OPENCLAW_TOKEN_SECRET);
        api.inform(token.trim() ? "Tether: the OpenClaw gateway token is stored." : "Tether: the OpenClaw gateway token is removed.");
      },
    },
    // A manual disconnect stops the reconnect tries until the user connects again.
    { id: "tether.openclaw.disconnect", run: (api) => gatewayCommand(api.sessionCommand.bind(api), api.inform.bind(api), "disconnect") },
    { id: "tether.openclaw.connect", run: (api) => gatewayCommand(api.sessionCommand.bind(api), api.inform.bind(api), "connect") },
  ],

  frameSources: (settings) => [gatewayHttpOrigin(settings.openclaw.gatewayUrl)].filter((origin) => origin !== undefined),
};

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

function gatewayCommand(sessionCommand: (name: string) => boolean, inform: (message: string) => void, name: "connect" | "disconnect"): void {
  let done = false;
  try {
    done = sessionCommand(name);
  } catch {
    done = false;
  }
  if (!done) inform(`Tether: no OpenClaw session is running to ${name}.`);
}

/** The token from --token-file, in front of the device-key file (which never stores it). */
function withToken(store: SecretStore, token: string | undefined): SecretStore {
  if (token === undefined) return store;
  return {
    get: async (name) => (name === OPENCLAW_TOKEN_SECRET ? token : store.get(name)),
    store: (name, value) => store.store(name, value),
    delete: (name) => store.delete(name),
  };
}

/** This machine's OS as the gateway names platforms. */
function nodePlatform(): string {
  return process.platform === "win32" ? "win32" : process.platform === "darwin" ? "darwin" : "linux";
}

