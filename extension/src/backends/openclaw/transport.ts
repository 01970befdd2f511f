// The gateway's WebSocket, over the maintained `ws` client: the extension host may run Node 20,
// which has no global WebSocket. Text frames only; the protocol itself is the core's.

import WebSocket from 'ws';

export interface TransportHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  /** Called once per socket, whether it opened or not (a failed connect closes with 1006). */
  onClose(code: number, reason: string): void;
}

export interface TransportOptions {
  /** The largest frame accepted (`hello-ok.policy.maxPayload`; 25 MiB before it is known). */
  maxPayload?: number;
  /** How long the socket may take to open. */
  openTimeoutMs?: number;
}

/** The gateway's default `policy.maxPayload`. */
export const DEFAULT_MAX_PAYLOAD = 25 * 1024 * 1024;

export class WsTransport {
  private readonly socket: WebSocket;
  private closed = false;

  constructor(url: string, private readonly handlers: TransportHandlers, options: TransportOptions = {}) {
    this.socket = new WebSocket(url, {
      maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
      handshakeTimeout: options.openTimeoutMs ?? 15_000,
      perMessageDeflate: false,
    });
    this.socket.on('open', () => this.handlers.onOpen());
    this.socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      // The gateway speaks JSON text; a binary frame is no frame of its protocol.
      if (isBinary) return;
      this.handlers.onMessage(rawText(data));
    });
    // `ws` reports a failed connect (refused, timed out, bad upgrade) as an error followed by a
    // close; the error's text is kept as the reason when the close has none.
    let failure = '';
    this.socket.on('error', (error: Error) => {
      failure = error.message;
    });
    this.socket.on('close', (code: number, reason: Buffer) => {
      if (this.closed) return;
      this.closed = true;
      this.handlers.onClose(code, reason.toString('utf8') || failure);
    });
  }

  /** Whether the socket is open to take frames. */
  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Bytes queued and not yet written (`hello-ok.policy.maxBufferedBytes` bounds it). */
  get bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }

  /** Send one text frame; false when the socket is not open. */
  send(text: string): boolean {
    if (!this.isOpen) return false;
    this.socket.send(text);
    return true;
  }

  close(code = 1000, reason = ''): void {
    if (this.socket.readyState === WebSocket.CONNECTING) {
      // Closing a socket still connecting is an error in `ws`; drop it instead (close follows).
      this.socket.terminate();
    } else if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.close(code, reason.slice(0, 120));
    }
  }
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
