/**
 * Reads a secret typed on a terminal without echoing it: raw mode on stdin, one line
 * (Enter ends it; Backspace edits; Ctrl-C or Ctrl-D on an empty line aborts). Raw mode is
 * always switched back off. Callers use `readAll` instead when stdin is not a TTY.
 */
import { AppError } from '../../app/errors.js';

/** A terminal stdin: a readable stream that can switch raw mode. */
export interface TtyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

export function canReadSilently(stdin: TtyInput): boolean {
  return stdin.isTTY === true && typeof stdin.setRawMode === 'function';
}

/** Resolves with the line typed (without its end); rejects with `Cancelled` on Ctrl-C. */
export function readSecretLine(stdin: TtyInput, echo: NodeJS.WritableStream): Promise<string> {
  const setRaw = stdin.setRawMode;
  if (stdin.isTTY !== true || typeof setRaw !== 'function') {
    return Promise.reject(new AppError('BadConfig', 'stdin is not a terminal'));
  }
  return new Promise<string>((resolve, reject) => {
    let line = '';
    const finish = (err: AppError | null): void => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      setRaw.call(stdin, false);
      stdin.pause();
      echo.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onEnd = (): void => finish(null);
    const onData = (chunk: Buffer | string): void => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return finish(null);
        if (ch === '\u0003') return finish(new AppError('Cancelled', 'cancelled (Ctrl-C)'));
        if (ch === '\u0004') {
          if (line === '') return finish(new AppError('Cancelled', 'cancelled (Ctrl-D)'));
          return finish(null);
        }
        if (ch === '\u007f' || ch === '\b') line = Array.from(line).slice(0, -1).join('');
        else if (ch >= ' ') line += ch;
      }
    };
    setRaw.call(stdin, true);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}
