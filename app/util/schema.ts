/**
 * A tiny schema language: each schema both validates an unknown value and gives its static
 * type (`Infer<S>`), so the contract's types and its checks can never drift apart.
 * Validation is strict on what it declares: objects reject unknown keys unless declared
 * `open` (wire objects from the service may grow fields), strings and arrays have bounds.
 * An open object that needed no change is returned as it came (not copied).
 */
import { AppError } from '../errors.js';

/**
 * A validator: `parse` returns the value typed, or throws AppError('BadRequest') naming the
 * path. `test` is the same check as a yes/no, building no message and no copy (the hot path:
 * every row read back from the mirror store); `parse` is then only needed to say why not.
 */
export interface Schema<T> {
  readonly describe: string;
  parse(v: unknown, path?: string): T;
  test(v: unknown): v is T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const fail = (path: string, what: string): never => {
  throw new AppError('BadRequest', `${path || 'value'}: ${what}`);
};

/**
 * A composite (object, array, record) hands each part only its own segment (`name`, `[3]`)
 * and puts its own path in front of a failure on the way up: no path string is built for
 * a value that passes (the hot path: every object of a walk, every row read back).
 */
const under = (path: string, e: unknown): never => {
  if (path && e instanceof AppError && e.code === 'BadRequest')
    throw new AppError('BadRequest', e.message.startsWith('[') ? path + e.message : `${path}.${e.message}`);
  throw e;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A string of `min`..`max` UTF-16 code units (default 0..4096), optionally matching `pattern`. */
export function str(opts: { min?: number; max?: number; pattern?: RegExp } = {}): Schema<string> {
  const min = opts.min ?? 0,
    max = opts.max ?? 4096,
    pattern = opts.pattern;
  return {
    describe: 'string',
    test: (v): v is string => typeof v === 'string' && v.length >= min && v.length <= max && (pattern === undefined || pattern.test(v)),
    parse(v, path = '') {
      if (typeof v !== 'string') return fail(path, 'expected a string');
      if (v.length < min) return fail(path, `shorter than ${min}`);
      if (v.length > max) return fail(path, `longer than ${max}`);
      if (opts.pattern && !opts.pattern.test(v)) return fail(path, 'has the wrong form');
      return v;
    },
  };
}

/** An integer in [min, max]. */
export function int(min = 0, max = Number.MAX_SAFE_INTEGER): Schema<number> {
  return {
    describe: 'integer',
    test: (v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
    parse(v, path = '') {
      if (typeof v !== 'number' || !Number.isInteger(v)) return fail(path, 'expected an integer');
      if (v < min || v > max) return fail(path, `out of range ${min}..${max}`);
      return v;
    },
  };
}

/** Any finite number (wire metadata such as aperture). */
export function num(): Schema<number> {
  return {
    describe: 'number',
    test: (v): v is number => typeof v === 'number' && Number.isFinite(v),
    parse(v, path = '') {
      if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, 'expected a finite number');
      return v;
    },
  };
}

export function bool(): Schema<boolean> {
  return {
    describe: 'boolean',
    test: (v): v is boolean => typeof v === 'boolean',
    parse(v, path = '') {
      if (typeof v !== 'boolean') return fail(path, 'expected a boolean');
      return v;
    },
  };
}

/** One of a fixed set of strings. */
export function oneOf<const V extends readonly string[]>(values: V): Schema<V[number]> {
  return {
    describe: values.join('|'),
    test: (v): v is V[number] => typeof v === 'string' && values.includes(v),
    parse(v, path = '') {
      if (typeof v !== 'string' || !values.includes(v)) return fail(path, `expected one of ${values.join(', ')}`);
      return v as V[number];
    },
  };
}

/** An array of at most `max` items. */
export function arr<T>(of: Schema<T>, max = 10_000): Schema<T[]> {
  return {
    describe: `${of.describe}[]`,
    test: (v): v is T[] => Array.isArray(v) && v.length <= max && v.every((x) => of.test(x)),
    parse(v, path = '') {
      if (!Array.isArray(v)) return fail(path, 'expected an array');
      if (v.length > max) return fail(path, `more than ${max} items`);
      try {
        return v.map((x, i) => of.parse(x, `[${i}]`));
      } catch (e) {
        return under(path, e);
      }
    },
  };
}

/** `T | null`. */
export function nullable<T>(of: Schema<T>): Schema<T | null> {
  return {
    describe: `${of.describe}|null`,
    parse: (v, path = '') => (v === null ? null : of.parse(v, path)),
    test: (v): v is T | null => v === null || of.test(v),
  };
}

/** Marks an object property as optional (absent or undefined). */
export interface Optional<T> extends Schema<T | undefined> {
  readonly optional: true;
  /** The schema of the value when present. */
  readonly of: Schema<T>;
}
export function opt<T>(of: Schema<T>): Optional<T> {
  return {
    optional: true,
    of,
    describe: `${of.describe}?`,
    parse: (v, path = '') => (v === undefined ? undefined : of.parse(v, path)),
    test: (v): v is T | undefined => v === undefined || of.test(v),
  };
}

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends Optional<unknown> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Flat<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<S extends Shape> = Flat<{ [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }>;

/**
 * An object with exactly the keys of `shape` (closed) or at least them (`open`: unknown keys
 * are kept as they are, for wire objects that may gain fields).
 */
export function obj<S extends Shape>(shape: S, opts: { open?: boolean } = {}): Schema<ObjectOf<S>> {
  // Hot path (every object of a walk, every row read back): the entries are listed once, and
  // an open object is returned as it came unless a field needs another value (copy on write).
  const entries = Object.entries(shape);
  const open = opts.open === true;
  // `test` walks the keys the value has (a row has ~10 of the ~20 declared) and calls the
  // present value's own check (no `opt` wrapper); it counts the required keys it met
  const checks = new Map<string, { s: Schema<unknown>; required: boolean }>(
    entries.map(([k, s]) => ('optional' in s ? [k, { s: (s as Optional<unknown>).of, required: false }] : [k, { s, required: true }])),
  );
  const required = entries.filter(([, s]) => !('optional' in s)).length;
  return {
    describe: 'object',
    test: (v): v is ObjectOf<S> => {
      if (!isPlainObject(v)) return false;
      let met = 0;
      for (const k in v) {
        const c = checks.get(k);
        if (c === undefined) {
          if (open) continue;
          return false;
        }
        const x = v[k];
        if (x === undefined) continue;
        if (!c.s.test(x)) return false;
        if (c.required) met++;
      }
      if (met === required) return true;
      // a required key that is missing passes only if its schema takes undefined (as parse does)
      for (const [k, c] of checks) if (c.required && v[k] === undefined && !c.s.test(undefined)) return false;
      return true;
    },
    parse(v, path = '') {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      if (!open) {
        for (const k of Object.keys(v))
          if (!Object.prototype.hasOwnProperty.call(shape, k)) fail(path ? `${path}.${k}` : k, 'unknown field');
      }
      let out: Record<string, unknown> = open ? v : {};
      try {
        for (const [k, s] of entries) {
          const x = v[k];
          const r = s.parse(x, k);
          if (!open) {
            if (r !== undefined) out[k] = r;
          } else if (r !== x || (r === undefined && k in v)) {
            if (out === v) out = { ...v };
            if (r === undefined) delete out[k];
            else out[k] = r;
          }
        }
      } catch (e) {
        return under(path, e);
      }
      return out as ObjectOf<S>;
    },
  };
}

/** A union discriminated by a `kind` string field. */
export function tagged<const M extends Record<string, Schema<object>>>(
  field: string,
  members: M,
): Schema<{ [K in keyof M]: Infer<M[K]> }[keyof M]> {
  return {
    describe: `union by ${field}`,
    test: (v): v is { [K in keyof M]: Infer<M[K]> }[keyof M] => {
      if (!isPlainObject(v)) return false;
      const tag = v[field];
      return typeof tag === 'string' && Object.prototype.hasOwnProperty.call(members, tag) && members[tag]!.test(v);
    },
    parse(v, path = '') {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const tag = v[field];
      if (typeof tag !== 'string' || !Object.prototype.hasOwnProperty.call(members, tag))
        return fail(path ? `${path}.${field}` : field, `expected one of ${Object.keys(members).join(', ')}`);
      return members[tag]!.parse(v, path) as { [K in keyof M]: Infer<M[K]> }[keyof M];
    },
  };
}

/** A string-keyed record of values (at most `max` keys). */
export function record<T>(of: Schema<T>, max = 10_000): Schema<Record<string, T>> {
  return {
    describe: `record<${of.describe}>`,
    test: (v): v is Record<string, T> => {
      if (!isPlainObject(v)) return false;
      const keys = Object.keys(v);
      return keys.length <= max && keys.every((k) => of.test(v[k]));
    },
    parse(v, path = '') {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const keys = Object.keys(v);
      if (keys.length > max) return fail(path, `more than ${max} keys`);
      const out: Record<string, T> = {};
      try {
        for (const k of keys) out[k] = of.parse(v[k], k);
      } catch (e) {
        return under(path, e);
      }
      return out;
    },
  };
}

/** A literal value (used for discriminants). */
export function lit<const V extends string | boolean>(value: V): Schema<V> {
  return {
    describe: JSON.stringify(value),
    test: (v): v is V => v === value,
    parse(v, path = '') {
      if (v !== value) return fail(path, `expected ${JSON.stringify(value)}`);
      return value;
    },
  };
}
