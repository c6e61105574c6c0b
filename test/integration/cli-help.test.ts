/**
 * Both command lines behave like one (issue 25, point 15 and 20): every command and every
 * subcommand of both bins answers `--help` and `-h` with its usage on stdout and exit 0,
 * before checking its other arguments; an unknown option is a usage error (exit 2) ending
 * with that form's usage line; `--version` prints the version of package.json. The forms
 * come from the definitions (main/cli/specs.ts, server/cli/specs.ts), so a new command or
 * subcommand is checked without a word here. Spawned as a user runs them.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandSpec, FormSpec, ProgramSpec } from '../../app/cli/command-spec.js';
import { commandHelp, formsOf, usageBlock } from '../../app/cli/help.js';
import { MIRROR_PROGRAM } from '../../main/cli/specs.js';
import { SERVICE_PROGRAM } from '../../server/cli/specs.js';
import { runBin, type CliRun } from '../support/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const run = runBin;

interface Form {
  spec: CommandSpec;
  form: FormSpec;
  /** The words naming it: `held approve`. */
  words: string[];
}

/** Every command and subcommand of a program, from its definition. */
const formsOfProgram = (program: ProgramSpec): Form[] =>
  program.commands.flatMap((spec) => [
    { spec, form: spec, words: [spec.name] },
    ...formsOf(spec)
      .filter((f) => f !== spec)
      .map((form) => ({ spec, form, words: [spec.name, form.name] })),
  ]);

/** Runs `fn` over `items`, two at a time (the machine is shared): the results in order. */
async function inPairs<T, R>(items: readonly T[], fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(...(await Promise.all(items.slice(i, i + 2).map(fn))));
  return out;
}

const PROGRAMS = [
  { program: MIRROR_PROGRAM, bin: 'nas-mirror.js' },
  { program: SERVICE_PROGRAM, bin: 'nas-service.js' },
] as const;

describe('--help and -h on every command and subcommand', () => {
  for (const { program, bin } of PROGRAMS) {
    it(`${program.bin}: its usage from the definition, on stdout, exit 0`, async () => {
      const forms = formsOfProgram(program);
      expect(forms.length).toBeGreaterThan(program.commands.length); // subcommands included
      const cases = forms.flatMap((f) => ['--help', '-h'].map((flag) => ({ ...f, flag })));
      const results = await inPairs(cases, (c) => run(bin, ...c.words, c.flag));
      cases.forEach((c, i) => {
        const r = results[i]!;
        const help = commandHelp(program, c.spec, c.form === c.spec ? undefined : c.form);
        expect({ words: c.words.join(' '), flag: c.flag, code: r.code, err: r.err, out: r.out }).toEqual({
          words: c.words.join(' '),
          flag: c.flag,
          code: 0,
          err: '',
          out: help,
        });
      });
      // the top-level help lists exactly the defined commands
      const top = await run(bin, '--help');
      expect([...top.out.matchAll(new RegExp(`^ {2}${program.bin} (\\S+)`, 'gm'))].map((m) => m[1])).toEqual(
        program.commands.map((c) => c.name),
      );
    }, 240_000);

    it(`${program.bin}: an unknown option names itself and prints that form's usage line, exit 2`, async () => {
      const forms = formsOfProgram(program);
      const results = await inPairs(forms, (f) => run(bin, ...f.words, '--zz-unknown'));
      forms.forEach((f, i) => {
        const r: CliRun = results[i]!;
        // (a command that is only its subcommands asks for one of them first)
        const abstract = f.spec.abstract === true && f.form === f.spec;
        const usage = usageBlock(program, f.spec, abstract ? undefined : [f.form]);
        // said as the user typed it: the command, and the subcommand when there is one
        const typed = f.form === f.spec ? f.spec.name : `${f.spec.name} ${f.form.name}`;
        const says = program === MIRROR_PROGRAM ? `nas-mirror ${typed}: ` : `nas-service: ${typed}: `;
        expect({ words: f.words.join(' '), code: r.code, out: r.out }).toEqual({ words: f.words.join(' '), code: 2, out: '' });
        expect(r.err.startsWith(says), `${f.words.join(' ')}: ${r.err}`).toBe(true);
        expect(r.err.split('\n')[0], f.words.join(' ')).toContain(abstract ? 'give one of: ' : '--zz-unknown');
        expect(r.err.endsWith(usage), `${f.words.join(' ')}: ${r.err}`).toBe(true);
      });
    }, 240_000);
  }

  it('`help COMMAND [SUBCOMMAND]` is `COMMAND [SUBCOMMAND] --help`; an unknown one is a usage error', async () => {
    for (const [bin, words] of [
      ['nas-mirror.js', ['search']],
      ['nas-mirror.js', ['held', 'approve']],
      ['nas-service.js', ['user', 'add']],
    ] as const) {
      const help = await run(bin, 'help', ...words);
      expect(help).toEqual({ code: 0, err: '', out: (await run(bin, ...words, '--help')).out });
      expect(help.out).toMatch(/^usage:/);
    }
    const unknown = await run('nas-mirror.js', 'help', 'nosuch');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^nas-mirror: unknown command "nosuch"\nusage: nas-mirror <command>/);
  }, 60_000);

  it('--version on both bins', async () => {
    expect((await run('nas-mirror.js', '--version')).out).toBe(`nas-mirror ${VERSION}\n`);
    expect((await run('nas-service.js', '--version')).out).toBe(`nas-service ${VERSION}\n`);
  });
});
