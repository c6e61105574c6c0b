/**
 * From the tokens of a command line (as Node's `util.parseArgs` gives them with `tokens: true`)
 * to typed values, by a command's definition (command-spec.ts): the subcommand, the options
 * that form accepts, the number of positionals. Anything unknown or malformed is a UsageError
 * naming it, never ignored. Pure: each bin calls `util.parseArgs` itself (its cli/args.ts).
 */
import { UsageError, type CommandSpec, type FormSpec, type OptionSpec, type PositionalSpec } from './command-spec.js';

/** One token of `util.parseArgs({ tokens: true })`, the fields read here. */
export type ArgToken =
  | {
      readonly kind: 'option';
      readonly name: string;
      readonly rawName: string;
      readonly value: string | undefined;
      readonly inlineValue: boolean | undefined;
    }
  | { readonly kind: 'positional'; readonly value: string }
  | { readonly kind: 'option-terminator' };

/** The `options` to hand `util.parseArgs`: every option of the command, so a valued one takes the next word. */
export function parseArgsOptions(spec: CommandSpec): Record<string, { type: 'string' | 'boolean' }> {
  const out: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, o] of Object.entries(spec.options)) out[name] = { type: o.type };
  return out;
}

/** A parsed command line: the subcommand (if any), the positionals after it, the options. */
export class Args<O extends string = string> {
  constructor(
    /** The subcommand given (`approve` of `held approve 3`), else undefined. */
    readonly sub: string | undefined,
    readonly positionals: readonly string[],
    private readonly values: ReadonlyMap<string, string | true>,
  ) {}

  has(name: O): boolean {
    return this.values.has(name);
  }

  flag(name: O): boolean {
    return this.values.get(name) === true;
  }

  str(name: O): string | undefined {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : undefined;
  }

  /** The option's value; a usage error when it is missing or empty. */
  need(name: O): string {
    const v = this.str(name);
    if (v === undefined || v === '') throw new UsageError(`--${name} is required`, 'MissingOption');
    return v;
  }

  /** A whole number, checked against the range when one is given; undefined when absent. */
  int(name: O, range?: { min: number; max: number }): number | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (range === undefined && Number.isNaN(n)) throw new UsageError(`--${name} must be a positive integer`, 'BadValue');
    if (range !== undefined && !(n >= range.min && n <= range.max))
      throw new UsageError(`--${name} must be an integer from ${range.min} to ${range.max}`, 'BadValue');
    return n;
  }
}

/** The form the positionals choose: a subcommand named by the first one, else the command itself. */
export function formOf<O extends string>(spec: CommandSpec<O>, positionals: readonly string[]): FormSpec<O> | undefined {
  const sub = spec.subcommands?.find((s) => s.name === positionals[0]);
  return sub ?? (spec.abstract ? undefined : spec);
}

/** The options a form takes. */
export const acceptedOptions = <O extends string>(spec: CommandSpec<O>, form: FormSpec<O>): O[] => [
  ...(form.accepts ?? (Object.keys(spec.options) as O[])),
];

/** Whether a form cannot do without an option. */
export const isRequired = (spec: CommandSpec, form: FormSpec, name: string): boolean => {
  const o = spec.options[name];
  return (o?.type === 'string' && o.required === true) || (form.requires ?? []).includes(name);
};

export function interpret<O extends string>(spec: CommandSpec<O>, tokens: readonly ArgToken[]): Args<O> {
  const all: string[] = [];
  for (const t of tokens) if (t.kind === 'positional') all.push(t.value);
  const form = formOf(spec, all);
  if (form === undefined) {
    const subs = (spec.subcommands ?? []).map((s) => s.name).join(', ');
    throw new UsageError(all[0] === undefined ? `give one of: ${subs}` : `unknown subcommand "${all[0]}" (${subs})`, 'UnknownCommand');
  }
  const accepted = new Set<string>(acceptedOptions(spec, form));
  const options: Readonly<Record<string, OptionSpec | undefined>> = spec.options;
  const values = new Map<string, string | true>();
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const opt = accepted.has(t.name) ? options[t.name] : undefined;
    if (opt === undefined) throw new UsageError(`unknown option ${t.rawName}`, 'UnknownOption');
    if (opt.type === 'boolean') {
      if (t.value !== undefined) throw new UsageError(`${t.rawName} takes no value`, 'UnexpectedValue');
      values.set(t.name, true);
      continue;
    }
    // `--state --json`: the next word is another option, not the value (`--objects=-5` says a dash is meant)
    if (t.value === undefined || (!t.inlineValue && /^-./.test(t.value))) {
      throw new UsageError(
        `${t.rawName} needs a value (${opt.value})` +
          (t.value === undefined ? '' : `; to give one starting with "-", write ${t.rawName}=${t.value}`),
        'MissingValue',
      );
    }
    values.set(t.name, t.value);
  }
  for (const name of accepted) {
    const opt = options[name];
    if (opt !== undefined && isRequired(spec, form, name) && !values.has(name)) {
      throw new UsageError(`--${name} is required${opt.type === 'string' ? ` (${opt.value})` : `: ${opt.description}`}`, 'MissingOption');
    }
  }
  const positionals = form === spec ? all : all.slice(1);
  checkCount(form.positionals, positionals);
  return new Args<O>(form === spec ? undefined : form.name, positionals, values);
}

/** The positionals' number against the form's definition (a command checks their content). */
function checkCount(defs: readonly PositionalSpec[], got: readonly string[]): void {
  const min = defs.filter((d) => d.optional !== true).length;
  const variadic = defs.some((d) => d.variadic === true);
  if (got.length < min) {
    const missing = defs.filter((d) => d.optional !== true)[got.length]!;
    throw new UsageError(`give the ${missing.name}: ${missing.description}`, 'BadArguments');
  }
  if (!variadic && got.length > defs.length) {
    const extra = got
      .slice(defs.length)
      .map((g) => JSON.stringify(g))
      .join(' ');
    throw new UsageError(
      defs.length === 0 ? `no argument is taken here, got ${extra}` : `too many arguments: ${extra} (quote a value that holds spaces)`,
      'BadArguments',
    );
  }
}

/** `--help` or `-h` before any `--`: the command's help is asked for, whatever else is there. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
