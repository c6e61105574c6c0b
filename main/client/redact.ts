/**
 * Secrets out of messages: a NAS may echo the token in an error message (plain, URL-encoded,
 * base64, inside JSON). Every message the client builds from what the NAS said goes through
 * `redactSecrets` before it can reach a log, the state db, the window or the terminal.
 */
import { AppError } from '../../app/errors.js';

export const REDACTED = '[redacted]';

/** The forms a secret may be echoed in. */
function formsOf(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
  ]);
  return [...forms].filter((f) => f.length >= 6).sort((a, b) => b.length - a.length);
}

/** `text` with every form of every secret (6 characters or more) replaced. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 6) continue;
    for (const f of formsOf(s)) out = out.split(f).join(REDACTED);
  }
  return out;
}

/** The same error with message and detail redacted (the cause dropped: it may hold the raw text). */
export function redactError(e: AppError, secrets: readonly string[]): AppError {
  const message = redactSecrets(e.message, secrets);
  const detail = e.detail === undefined ? undefined : redactSecrets(e.detail, secrets);
  if (message === e.message && detail === e.detail) return e;
  return new AppError(e.code, message, {
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(detail !== undefined ? { detail } : {}),
  });
}
