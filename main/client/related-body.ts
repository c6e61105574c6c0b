/**
 * A `multipart/related` body as the real clients send a create with its content (content.md,
 * "Create a file"): a JSON part of metadata, then a part of raw bytes, CRLF line ends. The
 * boundary is random and checked not to occur in the bytes (RFC 2046: it must not).
 */
import { randomBytes } from 'node:crypto';

export interface RelatedBody {
  body: Buffer;
  contentType: string;
}

/** The metadata part, then `content`, under a boundary found nowhere in either. */
export function relatedBody(meta: Record<string, unknown>, content: Buffer): RelatedBody {
  const json = Buffer.from(JSON.stringify(meta));
  for (;;) {
    const b = `nas-mirror-${randomBytes(18).toString('hex')}`;
    const delim = Buffer.from(`--${b}`);
    if (content.includes(delim) || json.includes(delim)) continue;
    const body = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n`),
      json,
      Buffer.from(`\r\n--${b}\r\nContent-Type: application/octet-stream\r\n\r\n`),
      content,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    return { body, contentType: `multipart/related; boundary=${b}` };
  }
}
