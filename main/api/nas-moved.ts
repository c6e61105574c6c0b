/**
 * The same NAS at a new address (the router gave it another IP, or it serves on another
 * port), given in Settings: recognised by its identity (nas-identity.ts), never by its URL.
 * When it is the mirrored NAS, the sign-in moves to the new address's account (kept, not
 * asked again).
 */
import { HttpTransport } from '../client/transport.js';
import type { Settings } from '../settings/settings-store.js';
import { rootAt } from './nas-identity.js';
import { accountFor, forgetCredential, storeCredential, tokenFor, type SessionDeps } from './session.js';

export interface NasMoved {
  from: string;
  to: string;
}

/**
 * Whether `after` reaches the NAS whose root is `rootId`, signed in as `before`'s account.
 * Returns the two addresses when it does (the sign-in then also lives under the new one),
 * null when it is another NAS (or nothing to sign in with); throws, in words, when the new
 * address cannot be asked (it does not answer), so the user knows nothing was changed.
 */
export async function sameNasElsewhere(deps: SessionDeps, before: Settings, after: Settings, rootId: string): Promise<NasMoved | null> {
  const transport = new HttpTransport();
  try {
    const old = await accountFor(before, transport).catch(() => null);
    const stored = old ? await tokenFor(deps, old.account) : undefined;
    if (!old || stored === undefined || after.source === 'embedded' || after.source === 'none') return null;
    const next = await accountFor(after, transport);
    if (!next || next.account === old.account) return null;
    const persist = (v: string): Promise<void> => storeCredential(deps, old.account, v).then(() => undefined);
    if ((await rootAt(next.candidates, stored, transport, persist)) !== rootId) return null;
    // the sign-in as it is now (a refresh may have rotated it while asking)
    await storeCredential(deps, next.account, (await tokenFor(deps, old.account)) ?? stored);
    await forgetCredential(deps, old.account);
    return { from: old.account, to: next.account };
  } finally {
    transport.close();
  }
}
