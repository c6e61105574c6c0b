/**
 * A small argument parser for the command line: `--name value`, `--name=value`, boolean
 * flags, positionals. Unknown options are usage errors (exit 2), never ignored.
 */
export class UsageError extends Error {}

export interface Parsed {
  positionals: string[];
  options: Map<string, string>;
  flags: Set<string>;
}

/** `valued`: options taking a value; `flags`: boolean options. */
export function parseArgs(argv: readonly string[], valued: readonly string[], flags: readonly string[]): Parsed {
  const out: Parsed = { positionals: [], options: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') { out.positionals.push(...argv.slice(i + 1)); break; }
    if (!a.startsWith('--') || a === '-') { out.positionals.push(a); continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (flags.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      out.flags.add(name);
    } else if (valued.includes(name)) {
      const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`--${name} needs a value`);
      out.options.set(name, v);
    } else throw new UsageError(`unknown option --${name}`);
  }
  return out;
}

export function need(p: Parsed, name: string): string {
  const v = p.options.get(name);
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function intOption(p: Parsed, name: string): number | undefined {
  const v = p.options.get(name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(v);
}
