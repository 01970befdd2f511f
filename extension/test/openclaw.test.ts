import assert from "node:assert/strict";
import { createPublicKey, verify } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import { DeviceKey, FileSecretStore, WsTransport, type SecretStore } from "../src/backends/openclaw/keys";

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tether-openclaw-"));
  dirs.push(dir);
  return dir;
}

class MemoryStore implements SecretStore {
  readonly values = new Map<string, string>();
  async get(key: string) {
    return this.values.get(key);
  }
  async store(key: string, value: string) {
    this.values.set(key, value);
  }
  async delete(key: string) {
    this.values.delete(key);
  }
}

test("the device key is made once and the same identity comes back from the store", async () => {
  const store = new MemoryStore();
  const first = await DeviceKey.load(store);
  const second = await DeviceKey.load(store);
  assert.deepEqual(second.identity, first.identity);
  assert.equal(store.values.size, 1);
  assert.match(first.identity.id, /^[0-9a-f]{64}$/);
  assert.equal(Buffer.from(first.identity.publicKey, "base64url").length, 32);
});

test("signatures verify with the published key, as the gateway checks them", async () => {
  const key = await DeviceKey.load(new MemoryStore());
  const payload = "v3|id|cli|cli|operator|operator.read|1795341839992|tok|nonce|linux|";
  const signature = Buffer.from(key.sign(payload), "base64url");
  const publicKey = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: key.identity.publicKey },
    format: "jwk",
  });
  assert.equal(verify(null, Buffer.from(payload), publicKey, signature), true);
  assert.equal(verify(null, Buffer.from(payload + "x"), publicKey, signature), false);
});

test("a stored value that is not an Ed25519 key is an error, not silently replaced", async () => {
  const store = new MemoryStore();
  await store.store("tether.openclaw.deviceKey", "not a key");
  await assert.rejects(DeviceKey.load(store), /is not a private key/);
  assert.equal(store.values.get("tether.openclaw.deviceKey"), "not a key");
});

test("the headless CLI's file store keeps the key private and across runs", async () => {
  const path = join(await tempDir(), "nested", "device.json");
  const identity = (await DeviceKey.load(new FileSecretStore(path))).identity;
  assert.deepEqual((await DeviceKey.load(new FileSecretStore(path))).identity, identity);
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  const store = new FileSecretStore(path);
  await store.store("tether.openclaw.deviceToken", "tok");
  await store.delete("tether.openclaw.deviceToken");
  assert.deepEqual(Object.keys(JSON.parse(await readFile(path, "utf8"))), ["tether.openclaw.deviceKey"]);
});

test("a damaged secrets file is reported, not overwritten", async () => {
  const path = join(await tempDir(), "device.json");
  await writeFile(path, "{ half");
  await assert.rejects(DeviceKey.load(new FileSecretStore(path)), /not the JSON Tether writes/);
  assert.equal(await readFile(path, "utf8"), "{ half");
});

/** A WebSocket server on 127.0.0.1 for one test. */
async function server(onConnection: (socket: ServerSocket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", onConnection);
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const { port } = wss.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

function recorder() {
  const seen: string[] = [];
  let closed!: (value: { code: number; reason: string }) => void;
  const closing = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
  let opened!: () => void;
  const opening = new Promise<void>((resolve) => (opened = resolve));
  let closes = 0;
  return {
    seen,
    closing,
    opening,
    get closes() {
      return closes;
    },
    handlers: {
      onOpen: () => opened(),
      onMessage: (text: string) => seen.push(text),
      onClose: (code: number, reason: string) => {
        closes++;
        closed({ code, reason });
      },
    },
  };
}

test("the transport carries text frames both ways and reports the gateway's close", async () => {
  const gateway = await server((socket) => {
    socket.send(JSON.stringify({ type: "event", event: "connect.challenge", payload: { nonce: "n", ts: 1 } }));
    socket.send(Buffer.from([1, 2, 3]), { binary: true });
    socket.on("message", (data) => {
      socket.send(`echo:${data.toString()}`);
      socket.close(1012, "service restart");
    });
  });
  try {
    const r = recorder();
    const transport = new WsTransport(gateway.url, r.handlers);
    await r.opening;
    assert.equal(transport.send("héllo"), true);
    const { code, reason } = await r.closing;
    assert.deepEqual([code, reason], [1012, "service restart"]);
    assert.equal(r.seen.length, 2, "the binary frame is dropped");
    assert.equal(JSON.parse(r.seen[0]!).event, "connect.challenge");
    assert.equal(r.seen[1], "echo:héllo");
    assert.equal(transport.send("late"), false);
  } finally {
    await gateway.close();
  }
});

test("a refused connection closes once with 1006 and the reason", async () => {
  const gateway = await server(() => {});
  const url = gateway.url;
  await gateway.close();
  const r = recorder();
  new WsTransport(url, r.handlers);
  const { code, reason } = await r.closing;
  assert.equal(code, 1006);
  assert.match(reason, /ECONNREFUSED/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(r.closes, 1);
});

test("closing while still connecting ends the socket without an error", async () => {
  const gateway = await server(() => {});
  try {
    const r = recorder();
    const transport = new WsTransport(gateway.url, r.handlers);
    transport.close(1000, "disconnected by the user");
    const { code } = await r.closing;
    assert.equal(code, 1006);
    assert.equal(r.closes, 1);
  } finally {
    await gateway.close();
  }
});

test("a frame over maxPayload closes the socket instead of being read", async () => {
  const gateway = await server((socket) => socket.send("x".repeat(2048)));
  try {
    const r = recorder();
    new WsTransport(gateway.url, r.handlers, { maxPayload: 1024 });
    const { code, reason } = await r.closing;
    // `ws` tells the gateway 1009 and ends its own side abnormally, with the reason kept.
    assert.equal(code, 1006);
    assert.match(reason, /Max payload size exceeded/);
    assert.deepEqual(r.seen, []);
  } finally {
    await gateway.close();
  }
});
