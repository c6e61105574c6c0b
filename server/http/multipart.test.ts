import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { multipartBoundary, MultipartParser, readMultipart, type PartEvent } from './multipart.js';

/** Parses a body fed in the given chunk sizes; returns each part's headers and bytes. */
function parse(body: Buffer, boundary: string, cuts: number[] = []): { headers: Record<string, string>; data: Buffer }[] {
  const p = new MultipartParser(boundary);
  const events: PartEvent[] = [];
  let at = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < body.length).sort((a, b) => a - b), body.length]) {
    events.push(...p.push(body.subarray(at, c)));
    at = c;
  }
  events.push(...p.end());
  const parts: { headers: Record<string, string>; data: Buffer }[] = [];
  for (const e of events) {
    if (e.kind === 'headers') parts.push({ headers: e.headers, data: Buffer.alloc(0) });
    else if (e.kind === 'data') parts[parts.length - 1]!.data = Buffer.concat([parts[parts.length - 1]!.data, e.data]);
  }
  return parts;
}

describe('multipart/related reader', () => {
  const json = '{"name":"a.txt","parentID":"root"}';
  it('reads the bodies real clients send (CRLF with headers, parts without headers, bare LF with a preamble)', () => {
    const go = Buffer.from(`--287\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${json}\r\n--287--`);
    const jsonType = { 'content-type': 'application/json; charset=UTF-8' };
    expect(parse(go, '287').map((p) => [p.headers, p.data.toString()])).toEqual([[jsonType, json]]);
    const node = Buffer.from(`--B\r\n\r\n${json}\r\n--B\r\n\r\nhello\r\n--B--`);
    expect(parse(node, 'B').map((p) => p.data.toString())).toEqual([json, 'hello']);
    const python = Buffer.from(`\n--foo\n\n${json}\n--foo\n\n--foo--\n`);
    expect(parse(python, 'foo').map((p) => p.data.toString())).toEqual([json, '']);
    const preamble = Buffer.from(`ignored\r\n--B   \r\nX-A: 1\r\n\r\nbody\r\n--B--\r\nepilogue`);
    expect(parse(preamble, 'B').map((p) => [p.headers, p.data.toString()])).toEqual([[{ 'x-a': '1' }, 'body']]);
  });

  it('gives the same parts however the body is cut into chunks, with delimiter look-alikes in the content', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat({ max: 400 }), { maxLength: 12 }), (raw, cuts) => {
        const content = Buffer.concat([Buffer.from('\r\n--B\r\n-\n--'), Buffer.from(raw), Buffer.from('\r\n--')]);
        const head = Buffer.from(`--BB\r\n\r\n${json}\r\n--BB\r\nContent-Type: application/octet-stream\r\n\r\n`);
        const body = Buffer.concat([head, content, Buffer.from('\r\n--BB--')]);
        const parts = parse(body, 'BB', cuts);
        expect(parts.map((p) => p.data.toString())[0]).toBe(json);
        expect(parts[1]!.data.equals(content)).toBe(true);
      }),
    );
  });

  it('refuses a body cut inside a part, a body with no part, and a multipart type without a boundary', () => {
    expect(() => parse(Buffer.from('--B\r\n\r\nunfinished'), 'B')).toThrow(/ends inside a part/);
    expect(() => parse(Buffer.from('no parts at all'), 'B')).toThrow(/no part/);
    expect(() => multipartBoundary('multipart/related')).toThrow(/no boundary/);
    expect(multipartBoundary('multipart/related; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('multipart/related; type="application/json"; boundary=xyz')).toBe('xyz');
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });

  it('readMultipart: the first part whole (with a size limit), the second as a stream, later parts dropped', async () => {
    const body = Buffer.from(`--B\r\n\r\n${json}\r\n--B\r\n\r\nCONTENT\r\n--B\r\n\r\nthird\r\n--B--`);
    const mp = readMultipart([body.subarray(0, 10), body.subarray(10)], 'B');
    expect((await mp.first(1000))?.toString()).toBe(json);
    const got: Buffer[] = [];
    for await (const c of mp.second()) got.push(c);
    expect([Buffer.concat(got).toString(), mp.hadSecond()]).toEqual(['CONTENT', true]);
    await expect(readMultipart([body], 'B').first(5)).rejects.toMatchObject({ status: 413 });
  });
});
