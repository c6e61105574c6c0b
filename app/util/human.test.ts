import { describe, expect, it } from 'vitest';
import { formatCount, formatSize, plural, realPlurals } from './human.js';

describe('human formats', () => {
  it('groups counts and words plurals', () => {
    expect(formatCount(12_340)).toBe('12,340');
    expect(plural(1, 'item', 'items')).toBe('1 item');
    expect(plural(100_000, 'item', 'items')).toBe('100,000 items');
  });

  it('writes one size one way', () => {
    expect(formatSize(undefined)).toBe('');
    expect(formatSize(512)).toBe('512 B');
    expect(formatSize(1234)).toBe('1.2 KB');
    expect(formatSize(433_700_000)).toBe('414 MB');
    expect(formatSize(10_440_000)).toBe('10 MB'); // 9.96 MB: not "10.0"
    expect(formatSize(1023 * 1024 ** 4)).toBe('1,023 TB');
  });

  it('turns "(s)" plurals into real ones', () => {
    expect(realPlurals('kept on this device: downloaded 3 file(s)')).toBe('kept on this device: downloaded 3 files');
    expect(realPlurals('freed 10 bytes: 1 file(s) are placeholders again; 2 file(s) you changed kept')).toBe(
      'freed 10 bytes: 1 file is placeholders again; 2 files you changed kept',
    );
    expect(realPlurals('held 1 delete(s) for confirmation')).toBe('held 1 delete for confirmation');
    expect(realPlurals('placed 1200 new placeholder(s)')).toBe('placed 1,200 new placeholders');
    expect(realPlurals('keep on this device: 2 download(s) failed; entry(s) box(s)')).toBe(
      'keep on this device: 2 downloads failed; entries boxes',
    );
    expect(realPlurals('only http(s) pages')).toBe('only http(s) pages');
  });
});
