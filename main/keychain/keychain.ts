/**
 * Where the access token lives: the OS keychain through keytar (Secret Service on Linux,
 * Keychain on macOS, Credential Manager on Windows). When no keychain is usable, an
 * in-memory one stands in and says so (`kind: 'memory'`, `reason`): the token then lasts
 * only as long as the process. The token never goes to a file or a log.
 */
import { AppError } from '../../app/errors.js';

export const KEYCHAIN_SERVICE = 'nas-mirror';

export interface Keychain {
  readonly kind: 'os' | 'memory';
  /** Why the OS keychain is not used (memory only). */
  readonly reason?: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, token: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

interface KeytarApi {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<{ account: string; password: string }[]>;
}

export class MemoryKeychain implements Keychain {
  readonly kind = 'memory' as const;
  private readonly m = new Map<string, string>();
  constructor(readonly reason = 'in-memory keychain') {}
  async get(account: string): Promise<string | undefined> {
    return this.m.get(account);
  }
  async set(account: string, token: string): Promise<void> {
    this.m.set(account, token);
  }
  async delete(account: string): Promise<boolean> {
    return this.m.delete(account);
  }
}

class OsKeychain implements Keychain {
  readonly kind = 'os' as const;
  constructor(private readonly k: KeytarApi) {}
  async get(account: string): Promise<string | undefined> {
    try {
      return (await this.k.getPassword(KEYCHAIN_SERVICE, account)) ?? undefined;
    } catch (e) {
      throw new AppError('NoKeychain', `the OS keychain failed: ${message(e)}`, { cause: e });
    }
  }
  async set(account: string, token: string): Promise<void> {
    try {
      await this.k.setPassword(KEYCHAIN_SERVICE, account, token);
    } catch (e) {
      throw new AppError('NoKeychain', `the OS keychain failed: ${message(e)}`, { cause: e });
    }
  }
  async delete(account: string): Promise<boolean> {
    try {
      return await this.k.deletePassword(KEYCHAIN_SERVICE, account);
    } catch (e) {
      throw new AppError('NoKeychain', `the OS keychain failed: ${message(e)}`, { cause: e });
    }
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

/** The OS keychain when keytar loads and answers, else a MemoryKeychain with the reason. */
export async function openKeychain(): Promise<Keychain> {
  let k: KeytarApi;
  try {
    const mod = (await import('keytar')) as unknown as { default?: KeytarApi } & KeytarApi;
    k = mod.default ?? mod;
  } catch (e) {
    return new MemoryKeychain(`keytar could not load (${message(e)})`);
  }
  try {
    // A probe: without a Secret Service (no D-Bus session, locked or absent keyring) this rejects.
    await k.findCredentials(KEYCHAIN_SERVICE);
  } catch (e) {
    return new MemoryKeychain(`no OS keychain is available (${message(e)})`);
  }
  return new OsKeychain(k);
}
