// The Transport of a backend that steers its own connections (an OpenClaw gateway): the core asks
// for sockets, frames, closes, signatures, a timer and stored secrets (TransportRequest), and this
// carries them out with the `ws` client, the device keys and Node's timers, telling the core what
// happened (TransportEvent). One WebSocket per channel (the operator's `gateway`, the workspace's
// `node`); the protocol, reconnects and backoff are the core's.

import type { TransportEvent, TransportRequest } from "../../generated/core";
import type { DeviceKey, SecretStore } from "./deviceKey";
import { WsTransport } from "./transport";
import type { Transport, TransportExit } from "../../session/transport";

export interface GatewayTransportOptions {
  /** Signs for each channel that has a device (`gateway`, `node`). */
  keys: Partial<Record<string, DeviceKey>>;
  /** Where `storeSecret` puts what the gateway issued. */
  secrets: SecretStore;
  /** The secret's name for a `storeSecret` name (per gateway). */
  secretName(name: string): string;
  log(message: string): void;
}

export class GatewayTransport implements Transport {
  private readonly sockets = new Map<string, WsTransport>();
  private eventHandler: (event: TransportEvent) => void = () => undefined;
  private wakeHandler: () => void = () => undefined;
  private exitHandler: (exit: TransportExit) => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: GatewayTransportOptions) {}

  get running(): boolean {
    return !this.stopped;
  }

  readonly pid = undefined;

  /** The core steers the sockets; there is no stream to write to. */
  send(message: string): void {
    this.options.log(`the gateway transport has no stream; dropped: ${message.slice(0, 120)}`);
  }

  onMessage(): void {
    // Frames arrive as transport events.
  }

  onTransportEvent(handler: (event: TransportEvent) => void): void {
    this.eventHandler = handler;
  }

  onWake(handler: () => void): void {
    this.wakeHandler = handler;
  }

  onExit(handler: (exit: TransportExit) => void): void {
    this.exitHandler = handler;
  }

  /** Carry out one of the core's requests. */
  carry(request: TransportRequest): void {
    if (this.stopped) return;
    switch (request.kind) {
      case "open":
        return this.open(request.channel, request.url, request.maxPayload);
      case "send":
        if (!this.sockets.get(request.channel)?.send(request.text)) this.options.log(`${request.channel}: not open; dropped a frame`);
        return;
      case "close":
        this.sockets.get(request.channel)?.close(request.code, request.reason);
        return;
      case "sign":
        return this.sign(request.channel, request.payload);
      case "wakeAt":
        clearTimeout(this.timer);
        this.timer = undefined;
        if (request.atMs !== null) this.timer = setTimeout(() => this.wakeHandler(), Math.max(0, request.atMs - Date.now()));
        return;
      case "storeSecret":
        void Promise.resolve(this.options.secrets.store(this.options.secretName(request.name), request.value)).catch((error: unknown) =>
          this.options.log(`could not store ${request.name}: ${describe(error)}`),
        );
        return;
      case "log":
        return this.options.log(request.message);
    }
  }

  async close(): Promise<void> {
    this.kill();
  }

  /** Close every socket; the session is over. */
  kill(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    for (const socket of this.sockets.values()) socket.close(1000, "session ended");
    this.sockets.clear();
    this.exitHandler({ code: 0, signal: null, detail: "" });
  }

  private open(channel: string, url: string, maxPayload: number): void {
    this.sockets.get(channel)?.close(1000, "reopening");
    const socket: WsTransport = new WsTransport(
      url,
      {
        // Events of a socket that was replaced are not the current connection's.
        onOpen: () => this.deliver(socket, channel, { kind: "opened", channel }),
        onMessage: (text) => this.deliver(socket, channel, { kind: "frame", channel, text }),
        onClose: (code, reason) => {
          this.deliver(socket, channel, { kind: "closed", channel, code, reason });
          if (this.sockets.get(channel) === socket) this.sockets.delete(channel);
        },
      },
      { maxPayload },
    );
    this.sockets.set(channel, socket);
  }

  private deliver(socket: WsTransport, channel: string, event: TransportEvent): void {
    if (this.stopped || this.sockets.get(channel) !== socket) return;
    this.eventHandler(event);
  }

  private sign(channel: string, payload: string): void {
    const key = this.options.keys[channel];
    if (!key) {
      this.options.log(`${channel}: asked to sign without a device key`);
      return;
    }
    this.eventHandler({ kind: "signed", channel, signature: key.sign(payload) });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
