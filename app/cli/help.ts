/**
 * `--help` text and usage lines, generated from the definitions (command-spec.ts): a
 * command's forms, arguments and options, the program's command list, and the usage line a
 * usage error ends with. What --help says is what the parser takes.
 */
import { acceptedOptions, isRequired } from './args.js';
import type { CommandSpec, FormSpec, OptionSpec, PositionalSpec, ProgramSpec } from './command-spec.js';

const positional = (p: PositionalSpec): string => {
  const name = p.variadic === true ? `${p.name}...` : p.name;
  return p.optional === true ? `[${name}]` : name;
};

const optionWord = (name: string, o: OptionSpec): string => (o.type === 'string' ? `--${name} ${o.value}` : `--${name}`);

const optionsOf = (spec: CommandSpec, form: FormSpec): [string, OptionSpec][] =>
  acceptedOptions(spec, form).map((n) => [n, spec.options[n]!] as [string, OptionSpec]);

/** One form's usage: `nas-mirror held approve ID... [--state DIR]`. */
export function formUsage(program: ProgramSpec, spec: CommandSpec, form: FormSpec): string {
  const words = [program.bin, spec.name, ...(form === spec ? [] : [form.name]), ...form.positionals.map(positional)];
  for (const [name, o] of optionsOf(spec, form))
    words.push(isRequired(spec, form, name) ? optionWord(name, o) : `[${optionWord(name, o)}]`);
  return words.join(' ');
}

/** Every form of a command: its own (unless it is only its subcommands), then each subcommand's. */
export const formsOf = (spec: CommandSpec): FormSpec[] => [...(spec.abstract === true ? [] : [spec]), ...(spec.subcommands ?? [])];

/** The usage lines of some forms, laid out as the program prints them. */
export function usageBlock(program: ProgramSpec, spec: CommandSpec, forms: readonly FormSpec[] = formsOf(spec)): string {
  const lines = forms.map((f) => formUsage(program, spec, f));
  if (program.usageLayout === 'block') return `usage:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
  return lines.map((l, i) => `${i === 0 ? 'usage: ' : '       '}${l}`).join('\n') + '\n';
}

/** Two aligned columns, indented. */
function columns(rows: readonly [string, string][]): string {
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`.trimEnd()).join('\n') + '\n';
}

/** `BIN CMD --help` (or `BIN CMD SUB --help`, `form` then being the subcommand). */
export function commandHelp(program: ProgramSpec, spec: CommandSpec, form?: FormSpec): string {
  const forms = form === undefined ? formsOf(spec) : [form];
  const shown = form ?? spec;
  const parts = [usageBlock(program, spec, forms), `\n${shown.summary}\n`];
  const args = new Map<string, string>();
  for (const f of forms) for (const p of f.positionals) if (!args.has(p.name)) args.set(p.name, p.description);
  if (form === undefined && spec.subcommands?.length)
    parts.push(`\nsubcommands:\n${columns(spec.subcommands.map((s) => [s.name, s.summary]))}`);
  if (args.size > 0) parts.push(`\narguments:\n${columns([...args])}`);
  const names = new Set(forms.flatMap((f) => acceptedOptions(spec, f)));
  const rows: [string, string][] = [...names].map((n) => {
    const o = spec.options[n]!;
    return [optionWord(n, o), o.description];
  });
  rows.push(['-h, --help', 'show this help']);
  parts.push(`\noptions:\n${columns(rows)}`);
  const notes = forms.flatMap((f) => f.notes ?? []);
  if (notes.length > 0) parts.push(`\n${notes.join('\n')}\n`);
  return parts.join('');
}

/** `BIN --help`: every command with its one line. */
export function programHelp(program: ProgramSpec): string {
  const rows = program.commands.map((c): [string, string] => [`${program.bin} ${c.name}`, c.summary]);
  return (
    `usage: ${program.bin} <command> [options]\n\n${program.summary}\n\n${columns(rows)}\n` +
    `"${program.bin} <command> --help" shows a command's arguments and options; "${program.bin} --version" the version.\n`
  );
}
