/**
 * A streaming reader of `multipart/related` bodies (RFC 2046) as real clients send them:
 * CRLF or bare LF line ends, parts with or without headers, a preamble, a missing final
 * line end. Part bytes are handed on as they arrive, never held whole: at most one chunk
 * plus the length of a delimiter is buffered.
 */
import { AppError } from '../../app/errors.js';

export type PartEvent = { kind: 'headers'; headers: Record<string, string> } | { kind: 'data'; data: Buffer } | { kind: 'end-part' };

const bad = (m: string): AppError => new AppError('BadRequest', m, { status: 400 });
const MAX_HEADER_BYTES = 16 * 1024;

/** The boundary of a `multipart/...` Content-Type, or undefined when the body is not multipart. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^\s*multipart\//i.test(contentType)) return undefined;
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,200})"|([^\s;,"]{1,200}))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (b === undefined) throw bad('the multipart Content-Type has no boundary');
  return b;
}

/** A push parser: feed chunks, get events. */
export class MultipartParser {
  /** A virtual line end first, so a delimiter at the very start is found like every other. */
  private buf: Buffer = Buffer.from('\n');
  private state: 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done' = 'preamble';
  private readonly delim: Buffer;
  private headers: Record<string, string> = {};
  /** Nothing of the current part's body seen yet. */
  private bodyStart = false;

  constructor(boundary: string) {
    this.delim = Buffer.from(`\n--${boundary}`);
  }

  push(chunk: Buffer): PartEvent[] {
    if (this.state === 'done') return [];
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: PartEvent[] = [];
    while (this.step(out));
    return out;
  }

  /** The body ended: a part left open is an error (a cut-off body is never taken as whole). */
  end(): PartEvent[] {
    if (this.state === 'done' || this.state === 'after-delimiter') return [];
    if (this.state === 'preamble') throw bad('the multipart body has no part');
    throw bad('the multipart body ends inside a part (no closing delimiter)');
  }

  /** One step of the state machine; false when it needs more bytes. */
  private step(out: PartEvent[]): boolean {
    switch (this.state) {
      case 'preamble': {
        const i = this.buf.indexOf(this.delim);
        if (i < 0) {
          this.buf = this.buf.subarray(Math.max(0, this.buf.length - this.delim.length));
          return false;
        }
        this.buf = this.buf.subarray(i + this.delim.length);
        this.state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        if (this.buf.length < 2) return false;
        if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
          this.state = 'done';
          return false;
        }
        const nl = this.buf.indexOf(0x0a);
        if (nl < 0) return false;
        this.buf = this.buf.subarray(nl + 1);
        this.state = 'headers';
        this.headers = {};
        return true;
      }
      case 'headers':
        return this.headerLine(out);
      case 'body':
        return this.bodyBytes(out);
      case 'done':
        return false;
    }
  }

  private headerLine(out: PartEvent[]): boolean {
    const nl = this.buf.indexOf(0x0a);
    if (nl < 0) {
      if (this.buf.length > MAX_HEADER_BYTES) throw bad('a multipart part header is too long');
      return false;
    }
    const line = this.buf.subarray(0, nl).toString('utf8').replace(/\r$/, '');
    this.buf = this.buf.subarray(nl + 1);
    if (line === '') {
      out.push({ kind: 'headers', headers: this.headers });
      this.state = 'body';
      this.bodyStart = true;
      return true;
    }
    const colon = line.indexOf(':');
    if (colon > 0) this.headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    return true;
  }

  private bodyBytes(out: PartEvent[]): boolean {
    if (this.bodyStart) {
      // An empty part written as `--B\n\n--B--` (a Python client): the blank line that ended
      // the headers doubles as the line end before the next delimiter.
      const bare = this.delim.subarray(1);
      const n = Math.min(bare.length, this.buf.length);
      if (this.buf.subarray(0, n).equals(bare.subarray(0, n))) {
        if (n < bare.length) return false;
        out.push({ kind: 'end-part' });
        this.buf = this.buf.subarray(bare.length);
        this.state = 'after-delimiter';
        return true;
      }
      this.bodyStart = false;
    }
    const i = this.buf.indexOf(this.delim);
    if (i >= 0) {
      const end = i > 0 && this.buf[i - 1] === 0x0d ? i - 1 : i;
      if (end > 0) out.push({ kind: 'data', data: this.buf.subarray(0, end) });
      out.push({ kind: 'end-part' });
      this.buf = this.buf.subarray(i + this.delim.length);
      this.state = 'after-delimiter';
      return true;
    }
    // keep what may be the start of a delimiter (and the CR before it)
    const keep = Math.min(this.buf.length, this.delim.length);
    if (this.buf.length > keep) {
      out.push({ kind: 'data', data: this.buf.subarray(0, this.buf.length - keep) });
      this.buf = this.buf.subarray(this.buf.length - keep);
    }
    return false;
  }
}

/** A multipart body read part by part: the first part whole (it is metadata), the second as a stream. */
export interface MultipartBody {
  /** The first part's bytes (at most `maxFirst`, else 413); undefined when the body has no part. */
  first(maxFirst: number): Promise<Buffer | undefined>;
  /** The second part's bytes as they arrive (nothing when there is none); further parts are read and dropped. */
  second(): AsyncGenerator<Buffer>;
  /** True when the body had a second part (known once `second()` was read to its end). */
  hadSecond(): boolean;
}

export function readMultipart(body: AsyncIterable<Buffer> | Iterable<Buffer>, boundary: string): MultipartBody {
  const parser = new MultipartParser(boundary);
  async function* events(): AsyncGenerator<PartEvent> {
    for await (const chunk of body) yield* parser.push(chunk);
    yield* parser.end();
  }
  const it = events();
  let part = 0;
  let second = false;
  const next = async (): Promise<PartEvent | undefined> => {
    const r = await it.next();
    return r.done ? undefined : r.value;
  };
  return {
    async first(maxFirst) {
      const chunks: Buffer[] = [];
      let size = 0;
      for (let e = await next(); e !== undefined; e = await next()) {
        if (e.kind === 'end-part') {
          part = 1;
          return Buffer.concat(chunks);
        }
        if (e.kind !== 'data') continue;
        size += e.data.length;
        const detail = `the metadata part is over ${maxFirst} bytes`;
        if (size > maxFirst) throw new AppError('PayloadTooLarge', 'Payload Too Large', { status: 413, detail });
        chunks.push(Buffer.from(e.data));
      }
      return undefined;
    },
    async *second() {
      for (let e = await next(); e !== undefined; e = await next()) {
        if (e.kind === 'headers') part++;
        if (part !== 2) continue;
        second = true;
        if (e.kind === 'data') yield e.data;
      }
    },
    hadSecond: () => second,
  };
}
