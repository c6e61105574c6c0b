/**
 * A tiny schema language: each schema both validates an unknown value and gives its static
 * type (`Infer<S>`), so the contract's types and its checks can never drift apart.
 * Validation is strict on what it declares: objects reject unknown keys unless declared
 * `open` (wire objects from the service may grow fields), strings and arrays have bounds.
 */
import { AppError } from '../errors.js';

/** A validator: returns the value typed, or throws AppError('BadRequest') naming the path. */
export interface Schema<T> {
  readonly describe: string;
  parse(v: unknown, path?: string): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const fail = (path: string, what: string): never => {
  throw new AppError('BadRequest', `${path || 'value'}: ${what}`);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** A string of `min`..`max` UTF-16 code units (default 0..4096), optionally matching `pattern`. */
export function str(opts: { min?: number; max?: number; pattern?: RegExp } = {}): Schema<string> {
  const min = opts.min ?? 0, max = opts.max ?? 4096;
  return {
    describe: 'string',
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
    parse(v, path = '') {
      if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, 'expected a finite number');
      return v;
    },
  };
}

export function bool(): Schema<boolean> {
  return {
    describe: 'boolean',
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
    parse(v, path = '') {
      if (!Array.isArray(v)) return fail(path, 'expected an array');
      if (v.length > max) return fail(path, `more than ${max} items`);
      return v.map((x, i) => of.parse(x, `${path}[${i}]`));
    },
  };
}

/** `T | null`. */
export function nullable<T>(of: Schema<T>): Schema<T | null> {
  return { describe: `${of.describe}|null`, parse: (v, path = '') => (v === null ? null : of.parse(v, path)) };
}

/** Marks an object property as optional (absent or undefined). */
export interface Optional<T> extends Schema<T | undefined> {
  readonly optional: true;
}
export function opt<T>(of: Schema<T>): Optional<T> {
  return { optional: true, describe: `${of.describe}?`, parse: (v, path = '') => (v === undefined ? undefined : of.parse(v, path)) };
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
  return {
    describe: 'object',
    parse(v, path = '') {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const out: Record<string, unknown> = opts.open ? { ...v } : {};
      for (const k of Object.keys(v)) {
        if (!(k in shape) && !opts.open) fail(path ? `${path}.${k}` : k, 'unknown field');
      }
      for (const [k, s] of Object.entries(shape)) {
        const r = s.parse(v[k], path ? `${path}.${k}` : k);
        if (r !== undefined) out[k] = r;
        else delete out[k];
      }
      return out as ObjectOf<S>;
    },
  };
}

/** A union discriminated by a `kind` string field. */
export function tagged<const M extends Record<string, Schema<object>>>(field: string, members: M): Schema<{ [K in keyof M]: Infer<M[K]> }[keyof M]> {
  return {
    describe: `union by ${field}`,
    parse(v, path = '') {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const tag = v[field];
      if (typeof tag !== 'string' || !Object.prototype.hasOwnProperty.call(members, tag)) return fail(path ? `${path}.${field}` : field, `expected one of ${Object.keys(members).join(', ')}`);
      return members[tag]!.parse(v, path) as { [K in keyof M]: Infer<M[K]> }[keyof M];
    },
  };
}

/** A string-keyed record of values (at most `max` keys). */
export function record<T>(of: Schema<T>, max = 10_000): Schema<Record<string, T>> {
  return {
    describe: `record<${of.describe}>`,
    parse(v, path = '') {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const keys = Object.keys(v);
      if (keys.length > max) return fail(path, `more than ${max} keys`);
      const out: Record<string, T> = {};
      for (const k of keys) out[k] = of.parse(v[k], `${path}.${k}`);
      return out;
    },
  };
}

/** A literal value (used for discriminants). */
export function lit<const V extends string | boolean>(value: V): Schema<V> {
  return {
    describe: JSON.stringify(value),
    parse(v, path = '') {
      if (v !== value) return fail(path, `expected ${JSON.stringify(value)}`);
      return value;
    },
  };
}
