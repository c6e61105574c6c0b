/**
 * Entry point of `nas-service` (bin/nas-service.js): serve, user add, token, grant,
 * import, demo. Errors print one line to stderr and exit non-zero (2 for usage errors).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, isAppError } from '../app/errors.js';
import { expectPositionals, intOpt, parseArgs, requireOpt, UsageError } from './cli/args.js';
import { loadDemo } from './demo/load.js';
import { importTree } from './import/import.js';
import { createLogger } from './log.js';
import { revokeToken, setPassword } from './auth/oauth.js';
import type { Quirk } from './quirks/quirks.js';
import { openServiceDb } from './store/schema.js';
import { Store } from './store/store.js';
import { PERM_NAMES, type PermName } from './store/tree-index.js';
import { addUser, grant, mintToken, SCOPES, type Scope } from './store/users.js';
import { appVersion } from './version.js';

const USAGE = `usage:
  nas-service serve --data DIR [--host 127.0.0.1] [--port N] [--token-ttl SECONDS] [--quirks real-device|NAME,...]
  nas-service user add NAME --data DIR [--password-stdin]
  nas-service user password NAME --data DIR --password-stdin
  nas-service token NAME --scope nas_read_write|nas_read_only --data DIR [--ttl SECONDS]
  nas-service token revoke --data DIR --token-stdin
  nas-service grant NAME ID ReadFile|WriteFile|FileOwner --data DIR
  nas-service import PATH --user NAME --data DIR [--into ID]
  nas-service demo --data DIR [--user demo] [--objects N] [--seed S]`;

const openStore = (dir: string): Store => new Store(openServiceDb(dir));
/** For commands that read or add to a library: a folder without one is an error, and stays untouched. */
const openExistingStore = (dir: string): Store => {
  if (!existsSync(join(dir, 'service.db'))) throw new AppError('NotFound', `no service data in ${dir}: create it first with "nas-service demo --data ${dir}" (or serve, or user add)`);
  return openStore(dir);
};

/** A secret from stdin (never the command line, where `ps` shows it): its first line. */
async function readSecret(what: string, example: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(`the ${what} is read from a pipe or a file, e.g. ${example}`);
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const v = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (v === '') throw new UsageError(`no ${what} on stdin`);
  return v;
}
const readPassword = (): Promise<string> => readSecret('password', 'printf %s "$PW" | nas-service user add NAME --password-stdin --data DIR');

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === '--version' || cmd === '-V') {
    process.stdout.write(`nas-service ${appVersion()}\n`);
    return 0;
  }
  // every command answers --help with its own usage lines
  const own = USAGE.split('\n').filter((l) => cmd !== undefined && l.startsWith(`  nas-service ${cmd} `));
  if ((rest.includes('--help') || rest.includes('-h')) && own.length > 0) {
    process.stdout.write(`usage:\n${own.join('\n')}\n`);
    return 0;
  }
  switch (cmd) {
    case 'serve': {
      const p = parseArgs(rest, ['data', 'host', 'port', 'token-ttl', 'quirks']);
      expectPositionals(p, 0, 'nas-service serve --data DIR [--host 127.0.0.1] [--port N] [--token-ttl SECONDS] [--quirks real-device|NAME,...]');
      // The HTTP side is loaded only to serve: the admin commands start faster without it.
      const [{ startService }, { DEFAULT_TOKEN_TTL_SEC }, { parseQuirks }] = await Promise.all([import('./service.js'), import('./http/app.js'), import('./quirks/quirks.js')]);
      let quirks: Set<Quirk> | undefined;
      try {
        quirks = p.options.has('quirks') ? parseQuirks(p.options.get('quirks')!) : undefined;
      } catch (e) {
        throw new UsageError(e instanceof Error ? e.message : String(e));
      }
      const log = createLogger('service');
      const svc = await startService({ dataDir: requireOpt(p, 'data'), host: p.options.get('host') ?? '127.0.0.1', port: intOpt(p, 'port', 0, 0, 65535), log, tokenTtlSec: intOpt(p, 'token-ttl', DEFAULT_TOKEN_TTL_SEC, 1, 365 * 86400), ...(quirks ? { quirks, quirkOptions: { periodic: true } } : {}) });
      if (quirks) process.stderr.write(`quirks: ${[...quirks].join(', ')}\n`);
      await new Promise<void>((res) => {
        const onSignal = (sig: string): void => {
          log.info('stopping', { signal: sig });
          void svc.stop().then(res);
        };
        // `on`, not `once`: a second signal during the stop must not kill the process half-way.
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
        // said only once a stop is handled: a supervisor may send SIGTERM as soon as it reads this
        process.stdout.write(`listening on ${svc.baseUrl}\n`);
      });
      return 0;
    }
    case 'user': {
      const p = parseArgs(rest, ['data'], ['password-stdin']);
      const sub = p.positionals[0];
      if (sub !== 'add' && sub !== 'password') throw new UsageError('usage: nas-service user add NAME --data DIR [--password-stdin]');
      expectPositionals(p, 2, `nas-service user ${sub} NAME --data DIR${sub === 'add' ? ' [--password-stdin]' : ' --password-stdin'}`);
      if (sub === 'password' && !p.flags.has('password-stdin')) throw new UsageError('--password-stdin is required (the password is read from stdin, never from an argument)');
      // Read before opening the store: stdin is a pipe or a file, never a prompt (no command waits on a terminal).
      const password = p.flags.has('password-stdin') ? await readPassword() : undefined;
      const store = openStore(requireOpt(p, 'data'));
      try {
        if (sub === 'add') {
          addUser(store, p.positionals[1]!);
          store.markTreeChanged();
        }
        if (password !== undefined) await setPassword(store, p.positionals[1]!, password);
      } finally {
        store.db.close();
      }
      process.stdout.write(sub === 'add' ? `user ${p.positionals[1]} added${password !== undefined ? ' (with a password)' : ''}\n` : `password of ${p.positionals[1]} set\n`);
      return 0;
    }
    case 'token': {
      if (rest[0] === 'revoke') {
        const p = parseArgs(rest.slice(1), ['data'], ['token-stdin']);
        expectPositionals(p, 0, 'nas-service token revoke --data DIR --token-stdin');
        if (!p.flags.has('token-stdin')) throw new UsageError('give the token on stdin: printf %s "$TOKEN" | nas-service token revoke --token-stdin --data DIR');
        const token = await readSecret('token', 'printf %s "$TOKEN" | nas-service token revoke --token-stdin --data DIR');
        const store = openExistingStore(requireOpt(p, 'data'));
        try { revokeToken(store, token); } finally { store.db.close(); }
        process.stdout.write('revoked: that token (and, for a sign-in, every token of it) no longer works\n');
        return 0;
      }
      const p = parseArgs(rest, ['data', 'scope', 'ttl']);
      expectPositionals(p, 1, 'nas-service token NAME --scope nas_read_write|nas_read_only --data DIR');
      const scope = requireOpt(p, 'scope');
      if (!(SCOPES as readonly string[]).includes(scope)) throw new UsageError('--scope must be nas_read_write or nas_read_only');
      const ttl = p.options.has('ttl') ? intOpt(p, 'ttl', 0, 1, 10 * 365 * 86400) : undefined;
      const store = openExistingStore(requireOpt(p, 'data'));
      const token = mintToken(store, p.positionals[0]!, scope as Scope, ttl);
      store.db.close();
      process.stdout.write(token + '\n');
      return 0;
    }
    case 'grant': {
      const p = parseArgs(rest, ['data']);
      expectPositionals(p, 3, 'nas-service grant NAME ID ReadFile|WriteFile|FileOwner --data DIR');
      const [name, id, perm] = p.positionals as [string, string, string];
      if (!(PERM_NAMES as readonly string[]).includes(perm)) throw new UsageError('the permission must be ReadFile, WriteFile or FileOwner');
      const store = openExistingStore(requireOpt(p, 'data'));
      if (!store.byId(id)) throw new AppError('NotFound', `no object with id "${id}" (ids are in the listings: curl .../filesSearch/parents?ids=root)`);
      grant(store, name, id, perm as PermName);
      store.markTreeChanged();
      store.db.close();
      process.stdout.write(`granted ${perm} on ${id} to ${name}\n`);
      return 0;
    }
    case 'import': {
      const p = parseArgs(rest, ['data', 'user', 'into']);
      expectPositionals(p, 1, 'nas-service import PATH --user NAME --data DIR [--into ID]');
      const user = requireOpt(p, 'user');
      const store = openExistingStore(requireOpt(p, 'data'));
      const r = await importTree(store, p.positionals[0]!, user, p.options.get('into'));
      store.markTreeChanged();
      store.db.close();
      process.stdout.write(`imported ${r.added} new objects (${r.updated} updated, ${r.unchanged} unchanged)\n`);
      return 0;
    }
    case 'demo': {
      const p = parseArgs(rest, ['data', 'user', 'objects', 'seed']);
      expectPositionals(p, 0, 'nas-service demo --data DIR [--user demo] [--objects N] [--seed S]');
      // every option checked before the folder or its database is created
      const objects = intOpt(p, 'objects', 10_000, 1, 10_000_000);
      const seed = intOpt(p, 'seed', 1, 0, 2 ** 31);
      const store = openStore(requireOpt(p, 'data'));
      const t0 = Date.now();
      const n = loadDemo(store, p.options.get('user') ?? 'demo', { objects, seed, reindex: false });
      store.markTreeChanged();
      store.db.close();
      process.stdout.write(`demo library: ${n} objects in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE + '\n');
      return cmd === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${cmd}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`nas-service: ${e.message}\n`);
      process.exitCode = 2;
    } else if (isAppError(e)) {
      process.stderr.write(`nas-service: ${e.detail ? `${e.message}: ${e.detail}` : e.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`nas-service: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    }
  },
);
