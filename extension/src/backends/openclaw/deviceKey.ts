// The device identity the gateway asks of nodes (and of operators beyond `cli`): an Ed25519 key
// made once and kept in a secret store (VS Code's SecretStorage in the extension, a file for the
// headless CLI). The core builds the text to sign; the private key never leaves this module.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Where secrets live: VS Code's `SecretStorage` has this shape (its Thenables are PromiseLike). */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** The public half, as the core's options take it (`device`). */
export interface DeviceIdentity {
  /** Hex SHA-256 of the raw public key. */
  id: string;
  /** The raw 32-byte public key, base64url. */
  publicKey: string;
}

export const DEVICE_KEY_SECRET = 'tether.openclaw.deviceKey';

export class DeviceKey {
  private constructor(private readonly privateKey: KeyObject, readonly identity: DeviceIdentity) {}

  /** The stored key, or a new one stored now. A stored value that is no Ed25519 key is an error (not replaced: the device would lose its pairing). */
  static async load(store: SecretStore, secretName = DEVICE_KEY_SECRET): Promise<DeviceKey> {
    const stored = await store.get(secretName);
    if (stored !== undefined) {
      let key: KeyObject;
      try {
        key = createPrivateKey(stored);
      } catch (error) {
        throw new Error(`the stored OpenClaw device key (${secretName}) is not a private key: ${(error as Error).message}`);
      }
      if (key.asymmetricKeyType !== 'ed25519') {
        throw new Error(`the stored OpenClaw device key (${secretName}) is ${key.asymmetricKeyType}, not Ed25519`);
      }
      return DeviceKey.from(key);
    }
    const { privateKey } = generateKeyPairSync('ed25519');
    await store.store(secretName, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    return DeviceKey.from(privateKey);
  }

  private static from(privateKey: KeyObject): DeviceKey {
    const raw = rawPublicKey(createPublicKey(privateKey));
    return new DeviceKey(privateKey, {
      id: createHash('sha256').update(raw).digest('hex'),
      publicKey: raw.toString('base64url'),
    });
  }

  /** The signature of the core's payload (its `sign` output), base64url. */
  sign(payload: string): string {
    return sign(null, Buffer.from(payload, 'utf8'), this.privateKey).toString('base64url');
  }
}

/** The raw key is the JWK's `x` (RFC 8037): no DER offsets to get wrong. */
function rawPublicKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new Error('an Ed25519 public key without x');
  return Buffer.from(jwk.x, 'base64url');
}

/**
 * Secrets in one JSON file, for the headless CLI (`--device-key FILE`): readable by the user
 * alone, replaced whole on each write so a crash leaves the old file or the new one.
 */
export class FileSecretStore implements SecretStore {
  constructor(private readonly path: string) {}

  async get(key: string): Promise<string | undefined> {
    const value = (await this.read())[key];
    return typeof value === 'string' ? value : undefined;
  }

  async store(key: string, value: string): Promise<void> {
    const secrets = await this.read();
    secrets[key] = value;
    await this.write(secrets);
  }

  async delete(key: string): Promise<void> {
    const secrets = await this.read();
    if (!(key in secrets)) return;
    delete secrets[key];
    await this.write(secrets);
  }

  private async read(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${this.path} is not the JSON Tether writes its secrets in`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(`${this.path} is not the JSON Tether writes its secrets in`);
    }
    return parsed as Record<string, unknown>;
  }

  private async write(secrets: Record<string, unknown>): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, this.path);
  }
}
