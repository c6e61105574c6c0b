/**
 * The service's logger: JSON lines to stderr (or a sink), one component name per logger.
 * Bearer tokens are redacted before anything is written. Never log a token.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const redact = (line: string): string => line.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]');

/** A JSON-lines logger; `min` defaults to NAS_SERVICE_LOG_LEVEL or `info`. */
export function createLogger(
  component: string,
  write: (line: string) => void = (l) => process.stderr.write(l),
  min: Level = (process.env['NAS_SERVICE_LOG_LEVEL'] as Level | undefined) ?? 'info',
): Logger {
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < ORDER[min]) return;
    const rec = { t: new Date().toISOString(), level, component, msg, ...fields };
    const line = JSON.stringify(rec, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v));
    write(redact(line) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export const silentLogger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
