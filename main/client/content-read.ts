/**
 * The shapes of a streamed content read (content.md, Read): where the bytes go (a download's
 * partial file, which knows how much it holds) and what the NAS said about them.
 */

/** A download's destination: it holds `offset()` bytes already; the read asks for the rest. */
export interface ContentTarget {
  offset(): number;
  /** A whole body (200) follows: what was held is dropped first. */
  restart(): Promise<void>;
  write(chunk: Buffer): Promise<void>;
  /**
   * Takes a copy of `bytes` (the caller reuses its buffer once this returns): undefined to go
   * on at once, or a promise to wait for. Optional: else each chunk goes to `write`, kept.
   */
  copy?(bytes: Buffer): Promise<void> | undefined;
}

/** The answer to a content read: 200 (whole), 206 (the rest from the offset), 416 (nothing past the offset). */
export interface ContentRead {
  status: 200 | 206 | 416;
  /** The eTag of the version the bytes belong to. */
  eTag: string | undefined;
  /** The file's full size, when the answer said it. */
  total: number | undefined;
}

/** A Content-Range value (`bytes a-b/total`, or a 416 answer's star form); undefined when unreadable. */
export function contentRangeOf(v: string | undefined): { start: number | undefined; total: number | undefined } | undefined {
  const m = v === undefined ? null : /^bytes\s+(?:(\d+)-\d+|\*)\/(\d+|\*)$/i.exec(v.trim());
  if (!m) return undefined;
  const total = m[2] === '*' ? undefined : Number(m[2]);
  return { start: m[1] === undefined ? undefined : Number(m[1]), total };
}
