/**
 * The embedded default: the reference service as a CHILD PROCESS (main/ never imports
 * server/). On first use it loads the demo library into `dataDir`; on every start it mints
 * a fresh token (held in memory only, never written by us) and serves on 127.0.0.1 port 0.
 * `stop` ends the child (SIGTERM, then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../app/errors.js';
import type { Logger } from '../log/logger.js';

export interface ServiceCommand {
  /** Executable (node, or Electron with ELECTRON_RUN_AS_NODE=1). */
  command: string;
  /** Arguments before the service's own (e.g. the path of bin/nas-service.js). */
  args: string[];
  env?: Record<string, string>;
}

export interface EmbeddedService {
  baseUrl: string;
  token: string;
  /** True when the demo library was created by this start. */
  created: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  service: ServiceCommand;
  log: Logger;
  /** Size of the demo library created on first use. */
  demoObjects?: number;
  seed?: number;
}

const MARKER = '.demo-ready';

function run(cmd: ServiceCommand, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command, [...cmd.args, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...cmd.env } });
    let out = '',
      err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new AppError('Internal', `cannot start the reference service: ${e.message}`, { cause: e }));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      // the token command's stdout is never echoed into an error
      else reject(new AppError('Internal', `nas-service ${args[0]} failed (exit ${code}): ${err.trim().split('\n').slice(-1)[0] ?? ''}`));
    });
  });
}

/** Starts the reference service with the demo library; resolves once it listens. */
export async function startEmbeddedService(opts: EmbeddedOptions): Promise<EmbeddedService> {
  const { dataDir, service, log } = opts;
  mkdirSync(dataDir, { recursive: true });
  let created = false;
  if (!existsSync(join(dataDir, MARKER))) {
    const n = opts.demoObjects ?? 2000;
    log.info('creating the demo library', { objects: n });
    await run(service, ['demo', '--data', dataDir, '--objects', String(n), '--seed', String(opts.seed ?? 1)]);
    writeFileSync(join(dataDir, MARKER), `${new Date().toISOString()}\n`);
    created = true;
  }
  const token = (await run(service, ['token', 'demo', '--scope', 'nas_read_write', '--data', dataDir])).trim();
  if (!/^\S+$/.test(token)) throw new AppError('Internal', 'the reference service minted no token');

  const child: ChildProcess = spawn(service.command, [...service.args, 'serve', '--data', dataDir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...service.env },
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new AppError('Timeout', 'the reference service did not start in time'));
    }, 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line.trim()) log.debug('service', { line: line.slice(0, 500) });
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new AppError('Internal', `cannot start the reference service: ${e.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new AppError('Unavailable', `the reference service exited (${code}) before listening`));
    });
  });
  log.info('embedded service listening', { baseUrl });

  let stopped: Promise<void> | null = null;
  return {
    baseUrl,
    token,
    created,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
      return stopped;
    },
  };
}
