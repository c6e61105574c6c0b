/**
 * One logger per component; JSON lines to a sink (stderr by default, or a file in the
 * background engine). Anything that looks like a bearer token is redacted before writing.
 */

export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface LogSink {
  write(line: string): void;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Redacts bearer tokens and `token` fields. */
export function redact(line: string): string {
  return line
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]')
    .replace(/("(?:token|accessToken|authorization)"\s*:\s*")[^"]*"/gi, '$1[redacted]"');
}

export function createLogger(
  component: string,
  sink: LogSink = { write: (l) => process.stderr.write(l) },
  min: Level = (process.env['NAS_MIRROR_LOG_LEVEL'] as Level | undefined) ?? 'info',
): Logger {
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < ORDER[min]) return;
    const rec = { t: new Date().toISOString(), level, component, msg, ...fields };
    let line: string;
    try {
      line = JSON.stringify(rec, (_k, v: unknown) =>
        v instanceof Error ? { name: v.name, message: v.message } : typeof v === 'bigint' ? v.toString() : v,
      );
    } catch {
      line = JSON.stringify({ t: rec.t, level, component, msg });
    }
    sink.write(redact(line) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (c) => createLogger(`${component}.${c}`, sink, min),
  };
}

/** A logger that drops everything (tests, quiet CLIs). */
export const silentLogger: Logger = createLogger('silent', { write: () => undefined }, 'error');
