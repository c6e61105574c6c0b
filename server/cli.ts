/**
 * Entry point of `nas-service` (bin/nas-service.js): serve, user add|password, token [revoke],
 * grant, import, demo, completion. Each command's words are defined once (cli/specs.ts): the
 * parser, --help, the usage line of an error and shell completion come from there. Errors
 * print one line to stderr and exit non-zero (2 for usage errors, with the usage line).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formOf } from '../app/cli/args.js';
import type { CommandSpec } from '../app/cli/command-spec.js';
import { completionScript, SHELLS } from '../app/cli/completion.js';
import { commandHelp, programHelp, usageBlock } from '../app/cli/help.js';
import { humanLine } from '../app/cli/human-log.js';
import { AppError, isAppError } from '../app/errors.js';
import { parseCommand, tokensOf, UsageError, wantsHelp } from './cli/args.js';
import * as specs from './cli/specs.js';
import { SERVICE_PROGRAM } from './cli/specs.js';
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

const openStore = (dir: string): Store => new Store(openServiceDb(dir));
/** For commands that read or add to a library: a folder without one is an error, and stays untouched. */
const openExistingStore = (dir: string): Store => {
  if (!existsSync(join(dir, 'service.db')))
    throw new AppError(
      'NotFound',
      `no service data in ${dir}: create it first with "nas-service demo --data ${dir}" (or serve, or user add)`,
    );
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
const readPassword = (): Promise<string> =>
  readSecret('password', 'printf %s "$PW" | nas-service user add NAME --password-stdin --data DIR');

const write = (text: string): void => {
  process.stdout.write(text);
};

async function serve(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.serve, argv);
  const port = p.int('port', { min: 0, max: 65535 }) ?? 0;
  // The HTTP side is loaded only to serve: the admin commands start faster without it.
  const [{ startService }, { DEFAULT_TOKEN_TTL_SEC }, { parseQuirks }] = await Promise.all([
    import('./service.js'),
    import('./http/app.js'),
    import('./quirks/quirks.js'),
  ]);
  const tokenTtlSec = p.int('token-ttl', { min: 1, max: 365 * 86400 }) ?? DEFAULT_TOKEN_TTL_SEC;
  let quirks: Set<Quirk> | undefined;
  const named = p.str('quirks');
  try {
    quirks = named !== undefined ? parseQuirks(named) : undefined;
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e), 'BadValue');
  }
  // lines for a person at a terminal; JSON lines (a file, a program) with --log-json
  const log = createLogger(
    'service',
    p.flag('log-json') ? (l) => process.stderr.write(l) : (l) => process.stderr.write(humanLine(l.replace(/\n$/, ''))),
  );
  const svc = await startService({
    dataDir: p.need('data'),
    host: p.str('host') ?? '127.0.0.1',
    port,
    log,
    tokenTtlSec,
    ...(quirks ? { quirks, quirkOptions: { periodic: true } } : {}),
  });
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
    write(`listening on ${svc.baseUrl}\n`);
  });
  return 0;
}

async function user(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.user, argv);
  const name = p.positionals[0]!;
  // Read before opening the store: stdin is a pipe or a file, never a prompt (no command waits on a terminal).
  const password = p.flag('password-stdin') ? await readPassword() : undefined;
  const store = openStore(p.need('data'));
  try {
    if (p.sub === 'add') {
      addUser(store, name);
      store.markTreeChanged();
    }
    if (password !== undefined) await setPassword(store, name, password);
  } finally {
    store.db.close();
  }
  write(p.sub === 'add' ? `user ${name} added${password !== undefined ? ' (with a password)' : ''}\n` : `password of ${name} set\n`);
  return 0;
}

async function token(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.token, argv);
  if (p.sub === 'revoke') {
    const secret = await readSecret('token', 'printf %s "$TOKEN" | nas-service token revoke --token-stdin --data DIR');
    const store = openExistingStore(p.need('data'));
    try {
      revokeToken(store, secret);
    } finally {
      store.db.close();
    }
    write('revoked: that token (and, for a sign-in, every token of it) no longer works\n');
    return 0;
  }
  const scope = p.need('scope');
  if (!(SCOPES as readonly string[]).includes(scope)) throw new UsageError('--scope must be nas_read_write or nas_read_only', 'BadValue');
  const ttl = p.int('ttl', { min: 1, max: 10 * 365 * 86400 });
  const store = openExistingStore(p.need('data'));
  const minted = mintToken(store, p.positionals[0]!, scope as Scope, ttl);
  store.db.close();
  write(minted + '\n');
  return 0;
}

async function grantCmd(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.grant, argv);
  const [name, id, perm] = p.positionals as [string, string, string];
  if (!(PERM_NAMES as readonly string[]).includes(perm))
    throw new UsageError('the permission must be ReadFile, WriteFile or FileOwner', 'BadValue');
  const store = openExistingStore(p.need('data'));
  if (!store.byId(id))
    throw new AppError('NotFound', `no object with id "${id}" (ids are in the listings: curl .../filesSearch/parents?ids=root)`);
  grant(store, name, id, perm as PermName);
  store.markTreeChanged();
  store.db.close();
  write(`granted ${perm} on ${id} to ${name}\n`);
  return 0;
}

async function importCmd(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.importCmd, argv);
  const owner = p.need('user');
  const store = openExistingStore(p.need('data'));
  const r = await importTree(store, p.positionals[0]!, owner, p.str('into'));
  store.markTreeChanged();
  store.db.close();
  write(`imported ${r.added} new objects (${r.updated} updated, ${r.unchanged} unchanged)\n`);
  return 0;
}

async function demo(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.demo, argv);
  // every option checked before the folder or its database is created
  const objects = p.int('objects', { min: 1, max: 10_000_000 }) ?? 10_000;
  const seed = p.int('seed', { min: 0, max: 2 ** 31 }) ?? 1;
  const store = openStore(p.need('data'));
  const t0 = Date.now();
  const n = loadDemo(store, p.str('user') ?? 'demo', { objects, seed, reindex: false });
  store.markTreeChanged();
  store.db.close();
  write(`demo library: ${n} objects in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return 0;
}

async function completion(argv: readonly string[]): Promise<number> {
  const p = parseCommand(specs.completion, argv);
  const shell = SHELLS.find((s) => s === p.positionals[0]);
  if (shell === undefined) throw new UsageError(`no completion for "${p.positionals[0] ?? ''}": give ${SHELLS.join(' or ')}`, 'BadValue');
  write(completionScript(SERVICE_PROGRAM, shell));
  return 0;
}

const COMMANDS: readonly { spec: CommandSpec; run: (argv: readonly string[]) => Promise<number> }[] = [
  { spec: specs.serve, run: serve },
  { spec: specs.user, run: user },
  { spec: specs.token, run: token },
  { spec: specs.grant, run: grantCmd },
  { spec: specs.importCmd, run: importCmd },
  { spec: specs.demo, run: demo },
  { spec: specs.completion, run: completion },
];

/** The form the words name (a subcommand, or the command), for its help and usage line. */
const formIn = (spec: CommandSpec, argv: readonly string[]) =>
  formOf(
    spec,
    tokensOf(spec, argv).flatMap((t) => (t.kind === 'positional' ? [t.value] : [])),
  );

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    write(`nas-service ${appVersion()}\n`);
    return 0;
  }
  // `nas-service help user add` is `nas-service user add --help`
  if (name === 'help' && rest.length > 0) return main([...rest, '--help']);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? process.stderr : process.stdout).write(programHelp(SERVICE_PROGRAM));
    return name === undefined ? 2 : 0;
  }
  const cmd = COMMANDS.find((c) => c.spec.name === name);
  if (cmd === undefined)
    throw new UsageError(
      `unknown ${name.startsWith('-') ? 'option' : 'command'} "${name}"\n${programHelp(SERVICE_PROGRAM)}`,
      'UnknownCommand',
    );
  // every command and subcommand answers --help with its own usage (before its other arguments are checked)
  if (wantsHelp(rest)) {
    const form = formIn(cmd.spec, rest);
    write(commandHelp(SERVICE_PROGRAM, cmd.spec, form === cmd.spec ? undefined : form));
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const form = formIn(cmd.spec, rest);
    const said = form === undefined || form === cmd.spec ? name : `${name} ${form.name}`;
    throw new UsageError(
      `${said}: ${e.message}\n${usageBlock(SERVICE_PROGRAM, cmd.spec, form === undefined ? undefined : [form]).trimEnd()}`,
      e.code,
    );
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
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
