/**
 * The declarative definition of a command-line program (both bins: `nas-mirror`, `nas-service`):
 * one `CommandSpec` per command, from which parsing (args.ts), `--help` and the usage line
 * printed on errors (help.ts), and shell completion (completion.ts) are all generated. Pure
 * data: no Node, so both bins share it (they share only app/).
 */

/** What a shell may offer for a value: files, folders, or a fixed list of words. */
export type Completion = 'file' | 'dir' | readonly string[];

/** An option that takes a value (`--state DIR`, `--state=DIR`). */
export interface ValueOption {
  readonly type: 'string';
  /** The value's placeholder in usage lines (`DIR`, `N`, `FILE|URL`). */
  readonly value: string;
  readonly description: string;
  /** Parsing fails without it (the usage line shows it without brackets). */
  readonly required?: boolean;
  readonly complete?: Completion;
}

/** An option that takes no value (`--json`). */
export interface FlagOption {
  readonly type: 'boolean';
  readonly description: string;
}

export type OptionSpec = ValueOption | FlagOption;

/** A positional argument; `variadic`: one or more (or, if `optional`, any number). */
export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
  readonly variadic?: boolean;
  readonly complete?: Completion;
}

/**
 * One form of a command: the command itself, or one of its subcommands (`held approve`,
 * `user add`), which share the command's table of options.
 */
export interface FormSpec<O extends string = string> {
  /** The word typed after the bin (after the command, for a subcommand). */
  readonly name: string;
  /** One line on what it does (the command list, the top of its --help, completion). */
  readonly summary: string;
  readonly positionals: readonly PositionalSpec[];
  /** The options this form takes, from the command's table; all of them when absent. */
  readonly accepts?: readonly NoInfer<O>[];
  /** Options this form cannot do without, beyond those `required` by definition (`user password --password-stdin`). */
  readonly requires?: readonly NoInfer<O>[];
  /** More lines for --help (examples, rules), after the options. */
  readonly notes?: readonly string[];
}

/** A command. `O` names its options, so a command reading an option its definition lacks does not compile. */
export interface CommandSpec<O extends string = string> extends FormSpec<O> {
  readonly options: { readonly [K in O]: OptionSpec };
  /** Subcommands, chosen by the first positional (`held approve ...`); without one, the command's own form applies. */
  readonly subcommands?: readonly FormSpec<O>[];
  /** The command is only its subcommands (`nas-service user add|password`): its own form is no usage line. */
  readonly abstract?: boolean;
}

export interface ProgramSpec {
  readonly bin: string;
  readonly summary: string;
  readonly commands: readonly CommandSpec[];
  /**
   * How `BIN CMD --help` shows usage lines, kept as each bin always printed them (scripts and
   * tests read them): `inline` = `usage: BIN CMD ...`, `block` = `usage:` then one indented line per form.
   */
  readonly usageLayout: 'inline' | 'block';
}

/** What is wrong with a command line, for a message and exit 2. */
export type UsageCode =
  'UnknownCommand' | 'UnknownOption' | 'MissingValue' | 'UnexpectedValue' | 'MissingOption' | 'BadValue' | 'BadArguments';

/** A usage error (exit 2): a typed code and a message saying what to change. */
export class UsageError extends Error {
  readonly code: UsageCode;

  constructor(message: string, code: UsageCode = 'BadArguments') {
    super(message);
    this.name = 'UsageError';
    this.code = code;
  }
}

/** Keeps the literal option names of a definition (for typed `Args`). */
export const defineCommand = <const O extends string>(spec: CommandSpec<O>): CommandSpec<O> => spec;

/** The option names of a definition. */
export type OptionsOf<S> = S extends CommandSpec<infer O> ? O : never;
