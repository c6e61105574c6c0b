/**
 * Reading an object back from the mirror store: the stored JSON is what the service sent,
 * checked then; it is checked again here with the same schema (app/model/remote-object.ts),
 * so a damaged or hand-edited state database is a `StateCorrupt` error naming the row, never
 * an object of the wrong shape travelling on as a `RemoteObject`. A sound row (all of them,
 * but for damage) costs the schema's `test` only; `parse` runs to say what is wrong.
 */
import { AppError } from '../../app/errors.js';
import { remoteObjectSchema, type RemoteObject } from '../../app/model/remote-object.js';

/** The object stored as `json`; `where` names the row in the error (an id, `root`, a query). */
export function storedObject(json: string, where: string): RemoteObject {
  let v: unknown;
  try {
    v = JSON.parse(json) as unknown;
    if (remoteObjectSchema.test(v)) return v;
    return remoteObjectSchema.parse(v, '');
  } catch (e) {
    throw new AppError(
      'StateCorrupt',
      `the mirror store holds an invalid object (${where.slice(0, 200)}): ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}
