/**
 * The HTTP application: a node:http request handler, separate from the listening server
 * (tests may call it without a port). Routes both `/sdk/v2` and `/v2` (and the v3 content
 * read); authenticates every
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
import { getContent } from './content-routes.js';
import { createFolder, createUpload, putContent, startVersion, uploadStatus } from './upload-routes.js';
import type { ContentStore } from '../content/content-store.js';
import type { Uploads } from '../content/uploads.js';

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
  /** File content: reads and uploads (content.md). */
  content: ContentStore;
  uploads: Uploads;
}

export const DEFAULT_TOKEN_TTL_SEC = 86_400;

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = /^\/(?:sdk\/)?v2\/(.*)$/;
/** One client reads content under v3 (content.md): only `files/<id>/content` answers there. */
const V3_CONTENT = /^\/(?:sdk\/)?v3\/(files\/[^/]+\/content)$/;

type RouteKind =
  | 'get'
  | 'patch'
  | 'delete'
  | 'text'
  | 'pan'
  | 'parents'
  | 'content'
  | 'mkdir'
  | 'upload-new'
  | 'upload-version'
  | 'upload-put'
  | 'upload-status'
  | 'none';
type Route = { kind: RouteKind; id?: string; allow?: string };

const only = (method: string, allowed: string, kind: RouteKind, id?: string): Route =>
  allowed.split(', ').includes(method) || (method === 'HEAD' && allowed.startsWith('GET'))
    ? { kind, id }
    : { kind: 'none', allow: allowed };

function route(method: string, rest: string): Route {
  const seg = rest.split('/');
  if (seg[0] === 'filesSearch' && seg.length === 2) {
    const kind = seg[1] === 'text' ? 'text' : seg[1] === 'parentAndName' ? 'pan' : seg[1] === 'parents' ? 'parents' : undefined;
    if (!kind) return { kind: 'none' };
    return only(method, 'GET', kind);
  }
  if (seg[0] !== 'files') return { kind: 'none' };
  if (seg.length === 1 || (seg.length === 2 && seg[1] === '')) return only(method, 'POST', 'mkdir');
  if (seg.length === 2 && seg[1] === 'resumable' && method === 'POST') return { kind: 'upload-new' };
  if (seg[1] === '') return { kind: 'none' };
  const id = decodeURIComponent(seg[1]!);
  if (seg.length === 2) {
    if (method === 'GET' || method === 'HEAD') return { kind: 'get', id };
    if (method === 'PATCH') return { kind: 'patch', id };
    if (method === 'DELETE') return { kind: 'delete', id };
    return { kind: 'none', allow: 'GET, PATCH, DELETE' };
  }
  const sub = seg.slice(2).join('/');
  if (sub === 'patch') return only(method, 'POST', 'patch', id);
  if (sub === 'content') return only(method, 'GET', 'content', id);
  if (sub === 'resumable') {
    if (method === 'GET' || method === 'HEAD') return { kind: 'upload-status', id };
    return method === 'POST' ? { kind: 'upload-version', id } : { kind: 'none', allow: 'GET, POST' };
  }
  if (sub === 'resumable/content') return only(method, 'PUT', 'upload-put', id);
  return { kind: 'none' };
}

/** The route of a path: `/sdk/v2/...`, `/v2/...`, or the v3 content read. */
function routeOf(method: string, path: string): Route {
  const v3 = V3_CONTENT.exec(path);
  if (v3) return route(method, v3[1]!);
  const m = PREFIX.exec(path);
  return m ? route(method, m[1]!) : { kind: 'none' };
}

export function createApp(deps: AppDeps): Handler {
  const { store, log } = deps;
  const oauth = { store, codes: new AuthCodes(), tokenTtlSec: () => deps.tokenTtlSec ?? DEFAULT_TOKEN_TTL_SEC };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const qi = rawUrl.indexOf('?');
    // a client that joins a base URL ending in "/" with a Location (`//sdk/v2/...`) still reaches the route
    const path = (qi < 0 ? rawUrl : rawUrl.slice(0, qi)).replace(/^\/{2,}/, '/');
    markStart(req);
    deps.onRequest?.(method, path);
    if (deps.stopping?.()) throw new AppError('Unavailable', 'Service Unavailable', { status: 503, detail: 'the service is stopping' });
    if (isOAuthPath(path)) {
      store.refreshIfChanged();
      return handleOAuth(oauth, req, res, path, qi < 0 ? '' : rawUrl.slice(qi + 1));
    }
    let r: Route;
    try {
      r = routeOf(method, path);
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
    if (!principal)
      throw new AppError('Unauthorized', 'Unauthorized', {
        status: 401,
        detail: token === undefined ? 'missing bearer token' : 'unknown or expired token',
      });
    const ctx: Ctx = {
      req,
      res,
      query,
      principal,
      store,
      log,
      onAsyncDelete: deps.onAsyncDelete,
      content: deps.content,
      uploads: deps.uploads,
    };
    return dispatch(ctx, r);
  };
  return (req, res) => {
    handle(req, res).catch((e: unknown) => {
      handleError(e, res, log, `${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
      if (e instanceof AppError && (e.status === 413 || e.status === 507)) req.resume();
    });
  };
}

function dispatch(ctx: Ctx, r: Route): void | Promise<void> {
  const id = r.id ?? '';
  switch (r.kind) {
    case 'get':
      return getById(ctx, id);
    case 'pan':
      return parentAndName(ctx);
    case 'parents':
      return listChildren(ctx);
    case 'text':
      return textSearch(ctx);
    case 'patch':
      return patchObject(ctx, id);
    case 'delete':
      return deleteObject(ctx, id);
    case 'content':
      return getContent(ctx, id);
    case 'mkdir':
      return createFolder(ctx);
    case 'upload-new':
      return createUpload(ctx);
    case 'upload-version':
      return startVersion(ctx, id);
    case 'upload-put':
      return putContent(ctx, id);
    case 'upload-status':
      return uploadStatus(ctx, id);
    case 'none':
      return;
  }
}
