/**
 * Where the NAS is: a device record (a file path, an http(s) URL serving it, or inline JSON)
 * holding `network.internalDNSName` and `network.proxyURL`, or a plain base URL.
 * Candidates come out LAN first, then the proxy.
 */
import { readFile } from 'node:fs/promises';
import { AppError } from '../../app/errors.js';
import type { Transport } from '../client/transport.js';

export interface DeviceRecord {
  network: { internalDNSName?: string; proxyURL?: string };
  [k: string]: unknown;
}

export interface Candidate {
  via: 'lan' | 'proxy' | 'url';
  baseUrl: string;
}

/** Turns `internalDNSName` (a host, host:port or a URL) into a base URL. */
export function lanBaseUrl(name: string): string {
  const t = name.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(t) ? t : `http://${t}`;
}

/** Parses a device record's JSON text. */
export function parseDeviceRecord(text: string): DeviceRecord {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new AppError('BadConfig', 'the device record is not valid JSON (is it the right file?)');
  }
  const net = (v as { network?: unknown } | null)?.network;
  if (typeof net !== 'object' || net === null) throw new AppError('BadConfig', 'the device record has no "network" object');
  const n = net as Record<string, unknown>;
  const out: DeviceRecord['network'] = {};
  if (typeof n['internalDNSName'] === 'string' && n['internalDNSName']) out.internalDNSName = n['internalDNSName'];
  if (typeof n['proxyURL'] === 'string' && n['proxyURL']) out.proxyURL = n['proxyURL'];
  if (!out.internalDNSName && !out.proxyURL)
    throw new AppError('BadConfig', 'the device record has neither network.internalDNSName nor network.proxyURL');
  return { ...(v as object), network: out };
}

/** The base URLs to try, LAN first. */
export function candidatesOf(rec: DeviceRecord): Candidate[] {
  const out: Candidate[] = [];
  if (rec.network.internalDNSName) out.push({ via: 'lan', baseUrl: lanBaseUrl(rec.network.internalDNSName) });
  if (rec.network.proxyURL) out.push({ via: 'proxy', baseUrl: rec.network.proxyURL.replace(/\/+$/, '') });
  return out;
}

/**
 * Reads `--device`: inline JSON (starts with `{`), a URL (a device record served over HTTP,
 * or, when it does not answer with one, a base URL), or a file path.
 */
export async function loadDevice(spec: string, transport: Transport): Promise<Candidate[]> {
  const s = spec.trim();
  if (s.startsWith('{')) return candidatesOf(parseDeviceRecord(s));
  if (/^https?:\/\//i.test(s)) {
    try {
      const res = await transport.request({ method: 'GET', url: s, headers: { accept: 'application/json' }, timeoutMs: 3000 });
      if (res.status === 200) {
        const rec = parseDeviceRecord(res.body);
        return candidatesOf(rec);
      }
    } catch {
      // not a device record: a base URL
    }
    return [{ via: 'url', baseUrl: s.replace(/\/+$/, '') }];
  }
  let text: string;
  try {
    text = await readFile(s, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder, not a file'
            : (code ?? String(e));
    throw new AppError('BadConfig', `cannot read the device record ${s}: ${why}`, { cause: e });
  }
  return candidatesOf(parseDeviceRecord(text));
}
