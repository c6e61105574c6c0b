/**
 * A new file of at most one chunk goes up whole: the request that names it carries its bytes
 * and `done=true` (content.md, "Create a file": the create's content part), then one read of
 * the object binds it: two requests, where naming, a chunk and two reads took four. The NAS
 * keeps nothing of such a request that failed. Before it leaves, the creates row records the
 * bytes' sha256 (`CreatesStore.beginWhole`): after a crash or a lost answer, a finished file
 * at the row's place holding exactly those bytes is that request's (bound, or deleted when
 * the user's file left that place meanwhile), never someone else's file taken for ours.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../app/errors.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { ContentTarget } from '../client/content-read.js';
import type { ServiceClient } from '../client/service-client.js';
import type { CreateRow } from '../local/creates-store.js';
import { lstatBig } from '../local/analyse.js';
import type { Disk } from '../local/disk.js';
import type { FileSeen } from './file-chunks.js';

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * All the bytes of the file at `abs`, read while it stayed as `seen` (the same inode, size and
 * time after the read as before it); undefined when it changed meanwhile.
 */
export function readWhole(disk: Disk, abs: string, seen: FileSeen): Buffer | undefined {
  const bytes = disk.readChunk(abs, 0, seen.size);
  const st = lstatBig(abs, disk);
  const same =
    st !== undefined &&
    st.isFile() &&
    st.ino.toString() === seen.ino &&
    Number(st.size) === seen.size &&
    Number(st.mtimeMs) === seen.mtimeMs;
  return same && bytes.length === seen.size ? bytes : undefined;
}

/** A content read kept in memory, refused past `max` bytes (a recovery reads one small file). */
class InMemory implements ContentTarget {
  private chunks: Buffer[] = [];
  private n = 0;
  constructor(private readonly max: number) {}
  offset(): number {
    return this.n;
  }
  restart(): Promise<void> {
    this.chunks = [];
    this.n = 0;
    return Promise.resolve();
  }
  write(chunk: Buffer): Promise<void> {
    this.n += chunk.length;
    if (this.n > this.max) return Promise.reject(new AppError('ContentMismatch', 'more bytes than the file sent whole'));
    this.chunks.push(chunk);
    return Promise.resolve();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** The NAS object at the row's place (its folder, its name), or undefined when there is none. */
export async function objectAt(
  client: Pick<ServiceClient, 'parentAndName'>,
  row: Pick<CreateRow, 'parent' | 'name'>,
  signal: AbortSignal,
): Promise<RemoteObject | undefined> {
  try {
    return await client.parentAndName(row.parent, row.name, { signal });
  } catch (e) {
    if (e instanceof AppError && e.status === 404) return undefined;
    throw e;
  }
}

/**
 * The finished NAS file at the row's place holding exactly the bytes the row sent whole
 * (`row.sentSha`, at most `max` bytes); undefined when there is none (nothing there, a folder,
 * an unfinished upload, other bytes: not that request's).
 */
export async function sentWhole(
  client: Pick<ServiceClient, 'parentAndName' | 'readContent'>,
  row: CreateRow,
  max: number,
  signal: AbortSignal,
): Promise<RemoteObject | undefined> {
  if (row.sentSha === null) return undefined;
  const o = await objectAt(client, row, signal);
  if (o === undefined || o.mimeType === FOLDER_MIME || (o.size ?? 0) > max) return undefined;
  const got = new InMemory(max);
  try {
    const read = await client.readContent(o.id, got, { signal });
    if (read.status === 416 || (read.eTag !== undefined && read.eTag !== o.eTag)) return undefined;
  } catch (e) {
    // gone meanwhile, or unfinished (409: its content is not readable): not a file sent whole
    if (e instanceof AppError && (e.status === 404 || e.status === 409 || e.code === 'ContentMismatch')) return undefined;
    throw e;
  }
  return sha256(got.bytes()) === row.sentSha ? o : undefined;
}
