/**
 * The HTTP application: a node:http request handler, separate from the listening server
 * (tests may call it without a port). Routes both `/sdk/v2` and `/v2`; authenticates every
 * request; one central error handler answers every failure with JSON `{message, detail?}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../app/errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { authenticate } from '../store/users.js';
import { AuthCodes } from '../auth/oauth.js';
import { handleOAuth, isOAuthPath } from './oauth-routes.js';
import type { Ctx } from './context.js';
import { getById, listChildren, parentAndName, textSearch } from './read-routes.js';
import { bearer, lenientQuery } from './request.js';
import { handleError, markStart, sendError } from './respond.js';
import { deleteObject, patchObject } from './write-routes.js';

export interface AppDeps {
  store: Store;
  log: Logger;
  /** Wakes the delete job runner. */
  onAsyncDelete: () => void;
  /** Every request, before it is handled (method and path without the query). */
  onRequest?: (method: string, path: string) => void;
  /** True while the service stops: new requests get 503. */
  stopping?: () => boolean;
  /** Lifetime of access tokens issued by sign-in, in seconds (default 24 h). */
  tokenTtlSec?: number;
}

export const DEFAULT_TOKEN_TTL_SEC = 86_400;

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = /^\/(?:sdk\/)?v2\/(.*)$/;

type Route = { kind: 'get' | 'patch' | 'delete' | 'text' | 'pan' | 'parents' | 'none'; id?: string; allow?: string };

function route(method: string, rest: string): Route {
  const seg = rest.split('/');
  if (seg[0] === 'filesSearch' && seg.length === 2) {
    const kind = seg[1] === 'text' ? 'text' : seg[1] === 'parentAndName' ? 'pan' : seg[1] === 'parents' ? 'parents' : undefined;
    if (!kind) return { kind: 'none' };
    return method === 'GET' || method === 'HEAD' ? { kind } : { kind: 'none', allow: 'GET' };
  }
  if (seg[0] === 'files' && seg.length >= 2 && seg[1] !== '') {
    const id = decodeURIComponent(seg[1]!);
    if (seg.length === 2) {
      if (method === 'GET' || method === 'HEAD') return { kind: 'get', id };
      if (method === 'PATCH') return { kind: 'patch', id };
      if (method === 'DELETE') return { kind: 'delete', id };
      return { kind: 'none', allow: 'GET, PATCH, DELETE' };
    }
    if (seg.length === 3 && seg[2] === 'patch') return method === 'POST' ? { kind: 'patch', id } : { kind: 'none', allow: 'POST' };
  }
  return { kind: 'none' };
}

export function createApp(deps: AppDeps): Handler {
  const { store, log } = deps;
  const oauth = { store, codes: new AuthCodes(), tokenTtlSec: () => deps.tokenTtlSec ?? DEFAULT_TOKEN_TTL_SEC };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const qi = rawUrl.indexOf('?');
    const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
    markStart(req);
    deps.onRequest?.(method, path);
    if (deps.stopping?.()) throw new AppError('Unavailable', 'Service Unavailable', { status: 503, detail: 'the service is stopping' });
    if (isOAuthPath(path)) {
      store.refreshIfChanged();
      return handleOAuth(oauth, req, res, path, qi < 0 ? '' : rawUrl.slice(qi + 1));
    }
    const m = PREFIX.exec(path);
    let r: Route;
    try {
      r = m ? route(method, m[1]!) : { kind: 'none' };
    } catch {
      throw new AppError('BadRequest', 'the path is not valid', { status: 400 });
    }
    if (r.kind === 'none') {
      if (r.allow) {
        sendError(res, 405, 'Method Not Allowed', undefined, { Allow: r.allow });
        return;
      }
      throw new AppError('NotFound', 'Not Found', { status: 404, detail: 'no such endpoint' });
    }
    let query: URLSearchParams;
    try {
      query = lenientQuery(new URLSearchParams(qi < 0 ? '' : rawUrl.slice(qi + 1)));
    } catch {
      throw new AppError('BadRequest', 'the query string is not valid', { status: 400 });
    }
    const token = bearer(req);
    store.refreshIfChanged();
    const principal = token === undefined ? undefined : authenticate(store, token);
    if (!principal) throw new AppError('Unauthorized', 'Unauthorized', { status: 401, detail: token === undefined ? 'missing bearer token' : 'unknown or expired token' });
    const ctx: Ctx = { req, res, query, principal, store, log, onAsyncDelete: deps.onAsyncDelete };
    switch (r.kind) {
      case 'get': return getById(ctx, r.id!);
      case 'pan': return parentAndName(ctx);
      case 'parents': return listChildren(ctx);
      case 'text': return textSearch(ctx);
      case 'patch': return patchObject(ctx, r.id!);
      case 'delete': return deleteObject(ctx, r.id!);
    }
  };
  return (req, res) => {
    handle(req, res).catch((e: unknown) => {
      handleError(e, res, log, `${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
      if (e instanceof AppError && e.status === 413) req.resume();
    });
  };
}
