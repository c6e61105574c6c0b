/**
 * What a route handler gets: the request, its parsed URL, the authenticated principal, the
 * store, and helpers to resolve ids (`root` alias) into rows the user may read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ContentStore } from '../content/content-store.js';
import type { Uploads } from '../content/uploads.js';
import type { Logger } from '../log.js';
import { notFound, type Store } from '../store/store.js';
import { PERM } from '../store/tree-index.js';
import type { Principal } from '../store/users.js';

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  principal: Principal;
  store: Store;
  log: Logger;
  /** Called after a non-empty folder was marked for deletion. */
  onAsyncDelete: () => void;
  /** File content: reads and installs (content.md). */
  content: ContentStore;
  uploads: Uploads;
}

/** The row of an id or `root` that the user may read; 404 otherwise. Returns [row, access level]. */
export function resolveReadable(ctx: Ctx, id: string): [number, number] {
  const ix = ctx.store.index;
  let row: number | undefined;
  if (id === 'root') {
    row = ctx.store.db.prepare('SELECT root FROM users WHERE id = ?').pluck().get(ctx.principal.userId) as number | undefined;
  } else {
    row = ctx.store.byId(id)?.row;
  }
  if (row === undefined) throw notFound();
  const level = ix.access(ctx.principal.userId, row);
  if (level < PERM.ReadFile) throw notFound();
  return [row, level];
}
