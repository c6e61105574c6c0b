/**
 * Step 2 of the outbox (enqueue -> SEND -> settle): sends ONE entry and says what happened.
 * If-Match is the eTag the user last saw (the model's remote base). An entry left `sending`
 * (crash or lost answer) is first checked on the NAS: already applied -> not sent again.
 * 412: re-read; re-base and retry when the NAS changed only what this change does not touch,
 * otherwise a conflict. A delete never deletes after a 412. Before deleting a folder, it is
 * re-listed: anything the user has not seen makes the delete a conflict. 403 on a change is
 * a conflict for that change (a read-only token or a folder the user may not change must not
 * block the whole queue); 401 stops the queue until the token is fixed. An error retrying
 * cannot fix (`fatal`) is retried a few times, then the change is held for the user
 * (`unsent`: listed with the conflicts, Retry or Discard), never dropped and never retried
 * silently for ever.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { FOLDER_MIME, type RemoteObject } from '../../app/model/remote-object.js';
import type { ServiceClient } from '../client/service-client.js';
import type { LocalModel } from '../local/model.js';
import type { DeleteIntent, PatchIntent } from '../../app/model/intent.js';
import type { OutboxEntry } from './outbox-store.js';

export type SendOutcome =
  | { kind: 'applied'; eTag: string; fresh: RemoteObject | undefined; note: string }
  | { kind: 'deleted'; note: string }
  | { kind: 'conflict'; remote: RemoteObject | undefined; reason: string }
  | { kind: 'retry'; error: AppError; unknown: boolean }
  | { kind: 'auth'; error: AppError }
  /** Sent FATAL_ATTEMPTS times, each failing in a way retrying cannot fix: held for the user. */
  | { kind: 'unsent'; error: AppError; reason: string };

/**
 * Attempts (each after the pump's backoff: 1, 2, 4 s...) of a change whose last send failed
 * `fatal` before it is held for the user: a middlebox's odd answer gets a second chance, a
 * NAS that always answers what the client cannot use does not keep the queue busy for ever.
 */
export const FATAL_ATTEMPTS = 4;

const holds = (p: PatchIntent, o: RemoteObject): boolean =>
  (p.name === undefined || o.name === p.name) && (p.parentID === undefined || o.parentID === p.parentID);

async function getOrGone(client: ServiceClient, id: string): Promise<RemoteObject | undefined> {
  try {
    return await client.get(id);
  } catch (e) {
    if (e instanceof AppError && e.code === 'NotFound') return undefined;
    throw e;
  }
}

/**
 * An error no step above turned into an answer, decided by its retry class alone: `user`
 * (the token, the keychain, the settings) stops the queue until the user acts; `backoff`
 * waits and sends again, after a check on the NAS when the request may have reached it.
 * `fatal` (an answer the client cannot use, an unknown 4xx, a bug) is retried the same way
 * until `attempt` (1 = the first send) reaches FATAL_ATTEMPTS, then held for the user.
 */
export function failure(e: unknown, attempt: number): SendOutcome {
  const err = toAppError(e);
  switch (err.retry) {
    case 'user':
      return { kind: 'auth', error: err };
    case 'fatal':
      if (attempt >= FATAL_ATTEMPTS) {
        const what = err.status !== undefined ? `${err.message} (HTTP ${err.status})` : err.message;
        return {
          kind: 'unsent',
          error: err,
          reason: `couldn't send it: ${what}; ${attempt} attempts, the last one failing in a way retrying cannot fix`,
        };
      }
      return { kind: 'retry', error: err, unknown: err.delivery === 'maybe-sent' };
    case 'backoff':
      return { kind: 'retry', error: err, unknown: err.delivery === 'maybe-sent' };
  }
}

/** Sends `entry` (read before the pump marked it sending: its `attempts` are the earlier ones). */
export async function sendEntry(client: ServiceClient, model: LocalModel, entry: OutboxEntry): Promise<SendOutcome> {
  try {
    const i = entry.intent;
    return i.op === 'patch' ? await sendPatch(client, model, entry, i) : await sendDelete(client, model, entry, i);
  } catch (e) {
    return failure(e, entry.attempts + 1);
  }
}

async function sendPatch(client: ServiceClient, model: LocalModel, entry: OutboxEntry, p: PatchIntent): Promise<SendOutcome> {
  const base = model.get(p.id);
  let ifMatch = base?.etag;
  if (entry.state === 'sending') {
    // Outcome unknown: look before sending again (exactly once).
    const fresh = await getOrGone(client, p.id);
    if (!fresh) return { kind: 'conflict', remote: undefined, reason: 'the NAS no longer has this object' };
    if (holds(p, fresh) && fresh.eTag !== base?.etag)
      return { kind: 'applied', eTag: fresh.eTag, fresh, note: 'already applied before the interruption (checked on the NAS)' };
  }
  if (!ifMatch) return { kind: 'conflict', remote: undefined, reason: 'the object is no longer mirrored' };
  const body: { name?: string; parentID?: string } = {};
  if (p.name !== undefined) body.name = p.name;
  if (p.parentID !== undefined) body.parentID = p.parentID;
  let note = `If-Match ${ifMatch}`;
  // What the NAS held when the If-Match below was read: undefined = the base the user saw. A
  // re-base reads the object again, and what it read (a move made on the NAS, say) is what
  // the applied change sits on: settle must record that, not the old base with a new eTag.
  let read: RemoteObject | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const r = await client.patch(p.id, body, { ifMatch });
      const eTag = r.eTag ?? (await client.get(p.id)).eTag;
      return { kind: 'applied', eTag, fresh: read ? { ...read, ...body, eTag } : undefined, note };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      if (e.code === 'NotFound') {
        // 404 is the object, or the folder it was to move into: only a re-read tells which
        const still = p.parentID !== undefined ? await getOrGone(client, p.id) : undefined;
        if (still) return { kind: 'conflict', remote: still, reason: 'the folder it was moved into is no longer on the NAS (404)' };
        return { kind: 'conflict', remote: undefined, reason: 'deleted on the NAS (404)' };
      }
      if (e.code === 'Conflict')
        return {
          kind: 'conflict',
          remote: await getOrGone(client, p.id),
          reason: `the target folder already holds an entry named ${JSON.stringify(p.name ?? p.fromName)} (409)`,
        };
      if (e.code === 'BadRequest')
        return { kind: 'conflict', remote: await getOrGone(client, p.id), reason: `the NAS refused it: ${e.detail ?? e.message}` };
      if (e.code === 'Forbidden')
        return {
          kind: 'conflict',
          remote: await getOrGone(client, p.id),
          reason: 'not allowed on the NAS (403: read-only access or no write permission here)',
        };
      if (e.code !== 'PreconditionFailed') throw e;
      const fresh = await getOrGone(client, p.id);
      if (!fresh) return { kind: 'conflict', remote: undefined, reason: 'deleted on the NAS (412, then 404)' };
      if (holds(p, fresh)) return { kind: 'applied', eTag: fresh.eTag, fresh, note: 'the NAS already shows this change' };
      const nameTouched = p.name !== undefined && fresh.name !== p.fromName;
      const parentTouched = p.parentID !== undefined && fresh.parentID !== p.fromParent;
      if (nameTouched || parentTouched) {
        return {
          kind: 'conflict',
          remote: fresh,
          reason:
            'changed on the NAS meanwhile (412): ' + (nameTouched ? `now named ${JSON.stringify(fresh.name)}` : 'moved to another folder'),
        };
      }
      note = `412 on ${ifMatch}: the NAS changed only what this change does not touch; re-based on ${fresh.eTag}`;
      ifMatch = fresh.eTag;
      read = fresh;
    }
  }
  return { kind: 'conflict', remote: await getOrGone(client, p.id), reason: 'kept changing on the NAS (412 three times)' };
}

async function sendDelete(client: ServiceClient, model: LocalModel, entry: OutboxEntry, d: DeleteIntent): Promise<SendOutcome> {
  const base = model.get(d.id);
  if (!base) return { kind: 'deleted', note: 'no longer mirrored' };
  let ifMatch = base.etag;
  let note = `If-Match ${ifMatch}`;
  if (base.kind === 'dir' || entry.state === 'sending') {
    const fresh = await getOrGone(client, d.id);
    if (!fresh) return { kind: 'deleted', note: 'already gone on the NAS' };
    if (fresh.name !== base.rname || fresh.parentID !== base.rparent)
      return { kind: 'conflict', remote: fresh, reason: 'renamed or moved on the NAS since you saw it: not deleted' };
    if (fresh.mimeType === FOLDER_MIME) {
      const unseen = await unseenBelow(client, model, fresh.id);
      if (unseen)
        return { kind: 'conflict', remote: fresh, reason: `the folder holds something you have not seen (${unseen}): not deleted` };
      // The user has seen everything it holds: its own eTag moved only with children we know.
      if (fresh.eTag !== ifMatch) note = `folder re-listed, nothing unseen; If-Match ${fresh.eTag} (was ${ifMatch})`;
      ifMatch = fresh.eTag;
    } else if (fresh.eTag !== ifMatch) {
      return { kind: 'conflict', remote: fresh, reason: 'changed on the NAS since you saw it: not deleted' };
    }
  }
  try {
    const r = await client.delete(d.id, { ifMatch });
    return { kind: 'deleted', note: `${note}; ${r === 'accepted' ? '202 (folder deleted in the background)' : '204'}` };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === 'NotFound') return { kind: 'deleted', note: 'already gone (404)' };
    if (e.code === 'PreconditionFailed')
      return {
        kind: 'conflict',
        remote: await getOrGone(client, d.id),
        reason: 'changed on the NAS (412): a delete that meets 412 never deletes',
      };
    if (e.code === 'Conflict' || e.code === 'BadRequest')
      return { kind: 'conflict', remote: await getOrGone(client, d.id), reason: `the NAS refused the delete: ${e.message}` };
    if (e.code === 'Forbidden')
      return {
        kind: 'conflict',
        remote: await getOrGone(client, d.id),
        reason: 'not allowed on the NAS (403: read-only access or no write permission here): not deleted',
      };
    throw e;
  }
}

/** A description of the first object below `folderId` the model does not know (or knows older), else undefined. */
async function unseenBelow(client: ServiceClient, model: LocalModel, folderId: string): Promise<string | undefined> {
  const queue = [folderId];
  while (queue.length) {
    const f = queue.shift()!;
    for await (const page of client.pages(f)) {
      // an object the client cannot read is one the user has not seen: never deleted blind
      if (page.invalid) return `an object the NAS sent could not be read (${page.invalid[0]!.reason})`;
      for (const o of page.files) {
        const known = model.get(o.id);
        if (!known) return `${JSON.stringify(o.name)} is new`;
        // moved in on the NAS while the user had it elsewhere: not deleted with this folder
        if (!model.isUnder(o.id, folderId)) return `${JSON.stringify(o.name)} is in it on the NAS but not here`;
        if (o.mimeType !== FOLDER_MIME && o.eTag !== known.etag) return `${JSON.stringify(o.name)} changed`;
        if (o.mimeType === FOLDER_MIME) queue.push(o.id);
      }
    }
  }
  return undefined;
}
