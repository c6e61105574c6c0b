/**
 * The shape shared by `nas-mirror held` and `nas-mirror conflicts`: list what waits for the
 * user (text, or `--json`: exactly the contract's shapes the window gets), or queue a
 * decision on some ids (or `all`) for the engine, which carries it out (`local_requests`).
 */
import { LocalStore, type RequestAction } from '../../local/local-store.js';
import { UsageError } from '../args.js';
import type { Command } from '../io.js';
import { openExistingState } from '../state.js';

export interface DecisionList<T extends { id: string }> {
  /** The command's name, for messages. */
  name: string;
  /** What one item is called: singular, plural. */
  noun: [string, string];
  /** The decisions (approve/reject, reapply/drop/keep-mine...): the subcommands. */
  actions: readonly string[];
  /** The engine requests they queue, in the same order, when not the same words. */
  requests?: readonly RequestAction[];
  list(local: LocalStore): T[];
  /** Whether `action` fits `item` (default: every one); `all` covers the items it fits. */
  fits?(item: T, action: string): boolean;
  /** Why `action` does not fit `item`, for the error. */
  misfit?(item: T, action: string): string;
  /** One line of the text listing (tab-separated, id first). */
  line(item: T): string;
}

/** The command: the list without a subcommand, else the decision (its subcommand) on the ids given. */
export function decisionCommand<T extends { id: string }>(d: DecisionList<T>): Command<'state' | 'json'> {
  return async (args, io) => {
    const { db } = openExistingState(args.str('state'), io.env);
    try {
      const local = new LocalStore(db);
      const action = args.sub;
      const ids = args.positionals;
      const items = d.list(local);
      if (action === undefined) {
        if (args.flag('json')) io.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
        else if (items.length === 0) io.stdout.write(`no ${d.noun[1]}\n`);
        else for (const it of items) io.stdout.write(`${d.line(it)}\n`);
        return 0;
      }
      const act = d.actions.find((a) => a === action);
      if (act === undefined) throw new UsageError(`unknown action "${action}" (${d.actions.join(', ')})`);
      const fitting = d.fits ? items.filter((it) => d.fits!(it, act)) : items;
      if (ids.includes('all') && fitting.length === 0) {
        io.stdout.write(`no ${d.noun[1]}${fitting.length < items.length ? ` that ${act} fits` : ''}: nothing to ${act}\n`);
        return 0;
      }
      const unknown = ids.filter((i) => i !== 'all' && !items.some((it) => it.id === i));
      if (unknown.length) {
        io.stderr.write(`nas-mirror ${d.name}: no ${d.noun[0]} ${unknown.join(', ')} (see "nas-mirror ${d.name}")\n`);
        return 1;
      }
      const misfits = ids.flatMap((i) => items.filter((it) => it.id === i && !fitting.includes(it)));
      if (misfits.length) {
        for (const it of misfits)
          io.stderr.write(`nas-mirror ${d.name}: ${d.noun[0]} ${it.id}: ${d.misfit?.(it, act) ?? `${act} does not fit it`}\n`);
        return 1;
      }
      local.request(d.requests ? d.requests[d.actions.indexOf(act)]! : (act as RequestAction), ids);
      const n = ids.includes('all') ? fitting.length : ids.length;
      io.stdout.write(
        `${act} queued for ${ids.includes('all') ? 'all ' : ''}${n} ${n === 1 ? d.noun[0] : d.noun[1]}; the engine carries it out\n`,
      );
      return 0;
    } finally {
      db.close();
    }
  };
}
