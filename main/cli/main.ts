/**
 * Entry point of `nas-mirror` (bin/nas-mirror.js): finds the command's definition (specs.ts),
 * answers --help from it, parses the words by it, then loads the command's file in commands/.
 * To add a command: its definition in specs.ts and one `entry` line below.
 */
import { AppError } from '../../app/errors.js';
import type { CommandSpec } from '../../app/cli/command-spec.js';
import { commandHelp, programHelp, usageBlock } from '../../app/cli/help.js';
import { formOf } from '../../app/cli/args.js';
import { parseCommand, tokensOf, UsageError, wantsHelp } from './args.js';
import { EXIT_FAIL, EXIT_USAGE, type CliIO, type Command } from './io.js';
import * as specs from './specs.js';
import { MIRROR_PROGRAM } from './specs.js';
import { appVersion } from './version.js';

interface Entry {
  spec: CommandSpec;
  start(argv: readonly string[], io: CliIO): Promise<number>;
}

/** A command: parsed by its definition before its code is loaded (a usage error costs no import). */
const entry = <O extends string>(spec: CommandSpec<O>, load: () => Promise<{ run: Command<O> }>): Entry => ({
  spec,
  start: async (argv, io) => {
    const args = parseCommand(spec, argv);
    return (await load()).run(args, io);
  },
});

const COMMANDS: readonly Entry[] = [
  entry(specs.login, () => import('./commands/login.js')),
  entry(specs.sync, () => import('./commands/sync.js')),
  entry(specs.search, () => import('./commands/search.js')),
  entry(specs.ls, () => import('./commands/ls.js')),
  entry(specs.find, () => import('./commands/find.js')),
  entry(specs.run, () => import('./commands/run.js')),
  entry(specs.status, () => import('./commands/status.js')),
  entry(specs.held, () => import('./commands/held.js')),
  entry(specs.uploads, () => import('./commands/uploads.js')),
  entry(specs.conflicts, () => import('./commands/conflicts.js')),
  entry(specs.undo, () => import('./commands/undo.js')),
  entry(specs.log, () => import('./commands/log.js')),
  entry(specs.organize, () => import('./commands/organize.js')),
  entry(specs.get, () => import('./commands/get.js')),
  entry(specs.open, () => import('./commands/open.js')),
  entry(specs.pin, () => import('./commands/pin.js')),
  entry(specs.unpin, () => import('./commands/unpin.js')),
  entry(specs.free, () => import('./commands/free.js')),
  entry(specs.du, () => import('./commands/du.js')),
  entry(specs.ui, () => import('./commands/ui.js')),
  entry(specs.completion, () => import('./commands/completion.js')),
];

/** The form the words name (a subcommand, or the command), for its help and usage line. */
const formIn = (spec: CommandSpec, argv: readonly string[]) =>
  formOf(
    spec,
    tokensOf(spec, argv).flatMap((t) => (t.kind === 'positional' ? [t.value] : [])),
  );

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  // `nas-mirror help search` is `nas-mirror search --help`
  if (name === 'help' && rest.length > 0) return main([...rest, '--help'], io);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(programHelp(MIRROR_PROGRAM));
    return name === undefined ? EXIT_USAGE : 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`nas-mirror ${appVersion()}\n`);
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.spec.name === name);
  if (!cmd) {
    io.stderr.write(`nas-mirror: unknown ${name.startsWith('-') ? 'option' : 'command'} "${name}"\n${programHelp(MIRROR_PROGRAM)}`);
    return EXIT_USAGE;
  }
  // every command and subcommand answers --help with its usage (before its own arguments are checked)
  if (wantsHelp(rest)) {
    const form = formIn(cmd.spec, rest);
    io.stdout.write(commandHelp(MIRROR_PROGRAM, cmd.spec, form === cmd.spec ? undefined : form));
    return 0;
  }
  try {
    return await cmd.start(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      const form = formIn(cmd.spec, rest);
      // the words a user typed: "nas-mirror held approve: give the ID", not "nas-mirror held: ..."
      const said = form === undefined || form === cmd.spec ? name : `${name} ${form.name}`;
      io.stderr.write(`nas-mirror ${said}: ${e.message}\n${usageBlock(MIRROR_PROGRAM, cmd.spec, form === undefined ? undefined : [form])}`);
      return EXIT_USAGE;
    }
    const msg = e instanceof AppError ? `${e.message}${e.detail ? ` (${e.detail})` : ''}` : e instanceof Error ? e.message : String(e);
    io.stderr.write(`nas-mirror ${name}: ${msg}\n`);
    return EXIT_FAIL;
  }
}

const isEntry = process.argv[1] !== undefined && /nas-mirror(\.m?js)?$|cli[/\\]main\.ts$/.test(process.argv[1]);
if (isEntry) {
  // A reader that goes away (`| head`) is not an error: stop quietly, as Unix tools do.
  const quietOnEpipe = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  };
  process.stdout.on('error', quietOnEpipe);
  process.stderr.on('error', quietOnEpipe);
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
  process.exitCode = code;
}
