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
import { startService } from './service.js';
import { openServiceDb } from './store/schema.js';
import { Store } from './store/store.js';
import { PERM_NAMES, type PermName } from './store/tree-index.js';
import { addUser, grant, mintToken, SCOPES, type Scope } from './store/users.js';

const USAGE = `usage:
  nas-service serve --data DIR [--host 127.0.0.1] [--port N]
  nas-service user add NAME --data DIR
  nas-service token NAME --scope nas_read_write|nas_read_only --data DIR [--ttl SECONDS]
  nas-service grant NAME ID ReadFile|WriteFile|FileOwner --data DIR
  nas-service import PATH --user NAME --data DIR [--into ID]
  nas-service demo --data DIR [--user demo] [--objects N] [--seed S]`;

const openStore = (dir: string): Store => new Store(openServiceDb(dir));
/** For commands that read or add to a library: a folder without one is an error, and stays untouched. */
const openExistingStore = (dir: string): Store => {
  if (!existsSync(join(dir, 'service.db'))) throw new AppError('NotFound', `no service data in ${dir}: create it first with "nas-service demo --data ${dir}" (or serve, or user add)`);
  return openStore(dir);
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'serve': {
      const p = parseArgs(rest, ['data', 'host', 'port']);
      expectPositionals(p, 0, 'nas-service serve --data DIR [--host 127.0.0.1] [--port N]');
      const log = createLogger('service');
      const svc = await startService({ dataDir: requireOpt(p, 'data'), host: p.options.get('host') ?? '127.0.0.1', port: intOpt(p, 'port', 0, 0, 65535), log });
      process.stdout.write(`listening on ${svc.baseUrl}\n`);
      await new Promise<void>((res) => {
        const onSignal = (sig: string): void => {
          log.info('stopping', { signal: sig });
          void svc.stop().then(res);
        };
        // `on`, not `once`: a second signal during the stop must not kill the process half-way.
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      return 0;
    }
    case 'user': {
      const p = parseArgs(rest, ['data']);
      if (p.positionals[0] !== 'add') throw new UsageError('usage: nas-service user add NAME --data DIR');
      expectPositionals(p, 2, 'nas-service user add NAME --data DIR');
      const store = openStore(requireOpt(p, 'data'));
      addUser(store, p.positionals[1]!);
      store.markTreeChanged();
      store.db.close();
      process.stdout.write(`user ${p.positionals[1]} added\n`);
      return 0;
    }
    case 'token': {
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
