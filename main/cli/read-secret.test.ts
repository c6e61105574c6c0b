/** readSecretLine: raw mode on while reading and off after, nothing echoed, editing keys. */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { canReadSilently, readSecretLine, type TtyInput } from './read-secret.js';

function fakeTty(): { stdin: TtyInput & PassThrough; modes: boolean[] } {
  const modes: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (m: boolean) => {
      modes.push(m);
    },
  });
  return { stdin, modes };
}
function sink(): { out: Writable; text: () => string } {
  let s = '';
  return {
    out: new Writable({
      write(c: Buffer, _e, cb) {
        s += c.toString();
        cb();
      },
    }),
    text: () => s,
  };
}

describe('readSecretLine', () => {
  it('reads one line in raw mode and echoes nothing of it', async () => {
    const { stdin, modes } = fakeTty();
    const echo = sink();
    const p = readSecretLine(stdin, echo.out);
    stdin.write('secr');
    stdin.write('et-tokX\u007fen\r ignored');
    await expect(p).resolves.toBe('secret-token');
    expect(modes).toEqual([true, false]);
    expect(echo.text()).toBe('\n');
    expect(stdin.listenerCount('data')).toBe(0);
  });

  it('Ctrl-C cancels and leaves raw mode', async () => {
    const { stdin, modes } = fakeTty();
    const p = readSecretLine(stdin, sink().out);
    stdin.write('abc\u0003');
    await expect(p).rejects.toMatchObject({ code: 'Cancelled' });
    expect(modes).toEqual([true, false]);
  });

  it('Ctrl-D ends a non-empty line; end of input ends it too', async () => {
    const a = fakeTty();
    const p = readSecretLine(a.stdin, sink().out);
    a.stdin.write('tok\u0004');
    await expect(p).resolves.toBe('tok');
    const b = fakeTty();
    const q = readSecretLine(b.stdin, sink().out);
    b.stdin.end('xyz');
    await expect(q).resolves.toBe('xyz');
  });

  it('is only used on a terminal', async () => {
    const plain = new PassThrough();
    expect(canReadSilently(plain)).toBe(false);
    expect(canReadSilently(fakeTty().stdin)).toBe(true);
    await expect(readSecretLine(plain, sink().out)).rejects.toMatchObject({ code: 'BadConfig' });
  });
});
