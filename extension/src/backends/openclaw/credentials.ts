// What Tether keeps to reach an OpenClaw gateway: a device key for the operator connection and
// one for the workspace's node (made once, kept in the secret store), and the tokens the gateway
// issued to them, stored per gateway. The shared gateway token is the user's (a setting's secret,
// a file, or the environment) and is not stored here.

import { DeviceKey, DEVICE_KEY_SECRET, type SecretStore } from "./deviceKey";

/** The node has a key of its own: the gateway keeps a node row per device. */
export const NODE_KEY_SECRET = "tether.openclaw.nodeDeviceKey";

export interface GatewayCredentials {
  operatorKey: DeviceKey;
  nodeKey?: DeviceKey;
  /** The token the gateway issued to the operator's device, when one was stored. */
  deviceToken?: string;
  nodeDeviceToken?: string;
}

/** The secret's name for what the core stores (`deviceToken.gateway`, `deviceToken.node`) for the gateway at `url`. */
export function gatewaySecretName(url: string, name: string): string {
  return `tether.openclaw.${name}@${url.trim().replace(/\/+$/, "")}`;
}

export async function loadCredentials(store: SecretStore, url: string, withNode: boolean): Promise<GatewayCredentials> {
  const operatorKey = await DeviceKey.load(store, DEVICE_KEY_SECRET);
  const deviceToken = await store.get(gatewaySecretName(url, "deviceToken.gateway"));
  const credentials: GatewayCredentials = { operatorKey, ...(deviceToken ? { deviceToken } : {}) };
  if (withNode) {
    credentials.nodeKey = await DeviceKey.load(store, NODE_KEY_SECRET);
    const nodeDeviceToken = await store.get(gatewaySecretName(url, "deviceToken.node"));
    if (nodeDeviceToken) credentials.nodeDeviceToken = nodeDeviceToken;
  }
  return credentials;
}
