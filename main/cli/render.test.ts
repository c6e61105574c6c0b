/** The CLI table: columns stay aligned with wide (CJK, emoji) and combining characters. */
import { describe, expect, it } from 'vitest';
import { displayWidth, table } from './render.js';

describe('displayWidth / table', () => {
  it('counts East Asian wide characters and emoji as two columns, marks as none', () => {
    expect(displayWidth('Photos')).toBe(6);
    expect(displayWidth('家族写真')).toBe(8);
    expect(displayWidth('🎉 Party')).toBe(8);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\x1b[1mbold\x1b[0m')).toBe(4);
    expect(displayWidth('Zürich — ©')).toBe(10);
  });

  it('aligns the next column after wide names', () => {
    const out = table([
      ['NAME', 'KIND'],
      ['Photos', 'folder'],
      ['家族写真', 'folder'],
      ['🎉 Party', 'folder'],
    ])
      .trimEnd()
      .split('\n');
    const col = (line: string): number =>
      displayWidth(line.slice(0, line.lastIndexOf('folder') === -1 ? line.indexOf('KIND') : line.lastIndexOf('folder')));
    expect(new Set(out.map(col)).size).toBe(1);
  });
});
