/**
 * The loopback redirect receiver of RFC 8252 §7.3: a one-shot HTTP server on 127.0.0.1 (a
 * port the OS picks) that waits for the browser to come back from the NAS's login page with
 * `code` and `state`, hands them over, and shows the user a plain page saying whether the
 * app is signed in. Anything else on the port gets 404; a wrong `state` is refused.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../app/errors.js';
import { ignore } from '../../app/util/ignore.js';

export interface Redirect {
  code: string;
  /** Tells the browser how it went (shown in the tab the user is looking at). */
  finish(ok: boolean, message: string): void;
}

export interface LoopbackReceiver {
  redirectUri: string;
  /** Resolves with the first redirect carrying the expected state; rejects on `error=`, timeout or close. */
  redirect: Promise<Redirect>;
  close(): void;
}

const PATH = '/callback';

function html(res: ServerResponse, status: number, title: string, text: string): void {
  const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>` +
    '<style>body{font:16px system-ui,sans-serif;max-width:30rem;margin:4rem auto;padding:0 1rem}</style></head>' +
    `<body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}

export async function startLoopback(state: string, timeoutMs = 10 * 60_000): Promise<LoopbackReceiver> {
  let resolve!: (r: Redirect) => void;
  let reject!: (e: AppError) => void;
  const redirect = new Promise<Redirect>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  redirect.catch(ignore('awaited later by the sign-in, which reports it; unhandled until then'));
  let done = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== PATH) return html(res, 404, 'Not found', 'Nothing here.');
    if (done) return html(res, 410, 'Already done', 'This sign-in is already finished; you can close this tab.');
    if (url.searchParams.get('state') !== state)
      return html(res, 400, 'Sign-in refused', 'This answer does not belong to the sign-in NAS Mirror started. Start again from the app.');
    done = true;
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error !== null || code === null || code === '') {
      html(res, 200, 'Sign-in cancelled', 'NAS Mirror is not signed in. You can close this tab.');
      finish();
      reject(
        new AppError(
          error === 'access_denied' ? 'Cancelled' : 'Unauthorized',
          error === 'access_denied' ? 'the sign-in was cancelled on the NAS' : `the NAS did not sign you in (${error ?? 'no code'})`,
        ),
      );
      return;
    }
    resolve({
      code,
      finish(ok, message) {
        html(res, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', message);
        finish();
      },
    });
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', rej);
      res();
    });
  });
  const timer = setTimeout(() => {
    reject(new AppError('Timeout', 'no answer from the sign-in page within 10 minutes: start again'));
    finish();
  }, timeoutMs);
  timer.unref();
  function finish(): void {
    clearTimeout(timer);
    server.close();
    server.closeIdleConnections();
  }
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}${PATH}`,
    redirect,
    close() {
      if (!done) reject(new AppError('Cancelled', 'the sign-in was cancelled'));
      done = true;
      finish();
    },
  };
}
