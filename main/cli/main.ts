/**
 * Entry point of `nas-mirror` (bin/nas-mirror.js): maps a command name to its file in
 * commands/. To add a command: one file exporting `run: Command`, one line in COMMANDS.
 */
import { AppError } from '../../app/errors.js';
import { UsageError } from './args.js';
import { EXIT_FAIL, EXIT_USAGE, type CliIO, type Command } from './io.js';
import { appVersion } from './version.js';

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Command }> }> = {
  login: { summary: 'login --device FILE|URL [--token-stdin]           sign in (browser) or store a pasted token, in the OS keychain', load: () => import('./commands/login.js') },
  sync: { summary: 'sync --device FILE|URL --state DIR [--token-env VAR] --once   one complete walk into DIR', load: () => import('./commands/sync.js') },
  search: { summary: 'search QUERY --state DIR [--limit N] [--page-token T] [--json]   search offline (ext: kind: in: size: date: camera:)', load: () => import('./commands/search.js') },
  ls: { summary: 'ls FOLDER --state DIR [--json]                      list a folder offline (a path such as Photos/2019, or an id)', load: () => import('./commands/ls.js') },
  find: { summary: 'find FOLDER NAME --state DIR [--json]              look a name up in a folder offline (a path, or an id)', load: () => import('./commands/find.js') },
  run: { summary: 'run --device FILE|URL --state DIR --dir MIRROR [--token-env VAR] [--once]   keep a local folder and the NAS in step', load: () => import('./commands/run.js') },
  status: { summary: 'status --state DIR [--json]                        state, outbox, conflicts, held deletes, local only', load: () => import('./commands/status.js') },
  held: { summary: 'held --state DIR [approve|reject ID...|all | renamed ID PATH] [--json]   deletes held for confirmation', load: () => import('./commands/held.js') },
  conflicts: { summary: 'conflicts --state DIR [reapply|drop ID...|all] [--json]   changes the NAS did not take', load: () => import('./commands/conflicts.js') },
  undo: { summary: 'undo OPERATION --state DIR                         undo a rename, move or organize batch (id from log)', load: () => import('./commands/undo.js') },
  log: { summary: 'log --state DIR [--limit N] [--json]               the activity log with reasons', load: () => import('./commands/log.js') },
  organize: { summary: 'organize (QUERY | --ids ID,ID,... | --ids-from FILE) --state DIR [--rename PATTERN] [--move PATTERN] [--dry-run] [--json]   bulk rename/move by pattern, one undo', load: () => import('./commands/organize.js') },
  get: { summary: 'get PATH --state DIR                               download a file of the mirror (a placeholder) through the running engine', load: () => import('./commands/get.js') },
  open: { summary: 'open PATH --state DIR                              get, then open it with the system\'s default app', load: () => import('./commands/open.js') },
  pin: {
    summary: 'pin PATH --state DIR                               keep a file or folder on this device (downloaded, kept current)',
    load: () => import('./commands/pin.js'),
  },
  unpin: {
    summary: 'unpin PATH --state DIR                             stop keeping it current (what is here stays until freed)',
    load: () => import('./commands/unpin.js'),
  },
  free: {
    summary: 'free PATH --state DIR                              free up space: downloads back to placeholders (edits kept)',
    load: () => import('./commands/free.js'),
  },
  du: { summary: 'du [FOLDER] --state DIR [--depth N] [--json]        where the space goes, offline', load: () => import('./commands/du.js') },
  ui: { summary: 'ui [--state DIR] [--port N] [--device FILE|URL] [--dir MIRROR]   the app headless: its window in a browser on 127.0.0.1', load: () => import('./commands/ui.js') },
};

function usage(): string {
  return `usage: nas-mirror <command> ...\n\n${Object.values(COMMANDS).map((c) => `  nas-mirror ${c.summary}`).join('\n')}\n`;
}

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(usage());
    return name === undefined ? EXIT_USAGE : 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`nas-mirror ${appVersion()}\n`);
    return 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    io.stderr.write(`nas-mirror: unknown command "${name}"\n${usage()}`);
    return EXIT_USAGE;
  }
  // every command answers --help with its usage (before its own arguments are checked)
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`usage: nas-mirror ${cmd.summary.replace(/ {2,}/, '\n\n  ')}\n`);
    return 0;
  }
  try {
    const { run } = await cmd.load();
    return await run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`nas-mirror ${name}: ${e.message}\nusage: nas-mirror ${cmd.summary.split('  ')[0]}\n`);
      return EXIT_USAGE;
    }
    const msg = e instanceof AppError ? `${e.message}${e.detail ? ` (${e.detail})` : ''}` : e instanceof Error ? e.message : String(e);
    io.stderr.write(`nas-mirror ${name}: ${msg}\n`);
    return EXIT_FAIL;
  }
}

const isEntry = process.argv[1] !== undefined && /nas-mirror(\.js)?$|cli[/\\]main\.ts$/.test(process.argv[1]);
if (isEntry) {
  // A reader that goes away (`| head`) is not an error: stop quietly, as Unix tools do.
  const quietOnEpipe = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  };
  process.stdout.on('error', quietOnEpipe);
  process.stderr.on('error', quietOnEpipe);
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
  process.exitCode = code;
}
