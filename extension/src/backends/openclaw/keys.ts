// The host's side of the OpenClaw gateway: the socket and the device key. The protocol is the
// core's (crate/src/openclaw).
export { WsTransport, DEFAULT_MAX_PAYLOAD, type TransportHandlers, type TransportOptions } from "./transport";
export { DeviceKey, FileSecretStore, DEVICE_KEY_SECRET, type DeviceIdentity, type SecretStore } from "./deviceKey";
