/**
 * A tiny argument parser for the service CLI: positionals and `--flag value` options
 * from a fixed set; anything unknown is an error with a message.
 */
export class UsageError extends Error {}

export interface Parsed {
  positionals: string[];
  options: Map<string, string>;
  /** Options that take no value. */
  flags: Set<string>;
}

/** Parses `argv` allowing only the `allowed` option names (without `--`) and the value-less `flagNames`. */
export function parseArgs(argv: readonly string[], allowed: readonly string[], flagNames: readonly string[] = []): Parsed {
  const positionals: string[] = [];
  const options = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq < 0 && flagNames.includes(name)) {
        flags.add(name);
        continue;
      }
      if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options.set(name, value);
    } else {
      positionals.push(a);
    }
  }
  return { positionals, options, flags };
}

export function requireOpt(p: Parsed, name: string): string {
  const v = p.options.get(name);
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function intOpt(p: Parsed, name: string, def: number, min: number, max: number): number {
  const v = p.options.get(name);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return Number(v);
}

export function expectPositionals(p: Parsed, n: number, usage: string): void {
  if (p.positionals.length !== n) throw new UsageError(`usage: ${usage}`);
}
