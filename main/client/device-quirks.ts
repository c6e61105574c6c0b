/**
 * What the client does about real devices that do not behave like the reference service
 * (docs/sync-engine.md, "Real devices"): objects in the NAS's trash (`trashed: true`) and
 * folders deleted with 202 that are still listed for a while never reach the mirror;
 * storage roots (`parentID ""`) and trashed objects are dropped from search results; a short
 * search page ends the search whatever its pageToken says; and a device found to ignore
 * If-Match is remembered, so every conditional write re-reads the object first.
 */
import type { ListingPage, RemoteObject, SearchPage } from '../../app/model/remote-object.js';

/** How long a folder deleted with 202 is kept out of listings (the device removes it meanwhile). */
export const GONE_FOR_MS = 10 * 60_000;

const isTrashed = (o: RemoteObject): boolean => (o as { trashed?: unknown }).trashed === true;

export class DeviceQuirks {
  private readonly gone = new Map<string, number>();
  /** `ignored` once a stale If-Match probe succeeded; `honoured` once it got 412. */
  ifMatch: 'unknown' | 'honoured' | 'ignored' = 'unknown';

  constructor(private readonly now: () => number = Date.now) {}

  /** A delete answered 202: the folder may linger in listings; it is gone for us. */
  deletedInBackground(id: string): void {
    this.gone.set(id, this.now() + GONE_FOR_MS);
  }

  /** Listings without trashed objects and folders this client deleted (202) that are still shown. */
  listing(page: ListingPage): ListingPage {
    if (!page.files.some((o) => isTrashed(o) || this.isGone(o.id))) return page;
    return { ...page, files: page.files.filter((o) => !isTrashed(o) && !this.isGone(o.id)) };
  }

  /**
   * Search pages without storage roots (a device lists the user's root when its name
   * matches; the offline index never does) and trashed objects; a page shorter than asked
   * for is the last one even when the device still sends a pageToken.
   */
  search(page: SearchPage, asked: number): SearchPage {
    const last = page.matches.length < asked;
    const matches = page.matches.filter((m) => m.file.parentID !== '' && !isTrashed(m.file));
    return matches.length === page.matches.length && !(last && page.pageToken !== '')
      ? page
      : { pageToken: last ? '' : page.pageToken, matches };
  }

  private isGone(id: string): boolean {
    const until = this.gone.get(id);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.gone.delete(id);
    return false;
  }
}
