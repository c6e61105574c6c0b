/** Dates on the wire: ISO 8601 UTC ending in `Z`, fractional seconds without trailing zeros. */

/** Formats epoch milliseconds as the service does: `2017-01-31T02:11:56.94Z`, `2016-11-14T13:15:14Z`. */
export function formatDate(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2017-01-31T02:11:56.940Z
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}

/** Parses a wire date (with or without fraction, `Z` or an offset); undefined when it does not parse. */
export function parseDate(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
}
