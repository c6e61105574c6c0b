import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInsideRoot, safeJoin, safeJoinOnDisk } from './path-safety.js';

const base = mkdtempSync(join(tmpdir(), 'path-safety-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('path safety', () => {
  it('refuses names that leave the root, accepts odd but legal ones', () => {
    for (const bad of [['..'], ['.'], ['a/b'], ['x\0y'], [''], ['a', '..', '..']])
      expect(() => safeJoin('/m', bad)).toThrow(/unsafe|escapes/);
    expect(safeJoin('/m', ['..foo'])).toBe('/m/..foo');
    expect(safeJoin('/m', ['a', '...'])).toBe('/m/a/...');
    expect(isInsideRoot('/m', '/m/..x')).toBe(true);
    expect(isInsideRoot('/m', '/other')).toBe(false);
  });

  it('a symbolic link in the mirror cannot lead a write outside it', () => {
    const root = join(base, 'mirror');
    const outside = join(base, 'outside');
    mkdirSync(join(root, 'real'), { recursive: true });
    mkdirSync(outside);
    symlinkSync(outside, join(root, 'link'));
    expect(safeJoinOnDisk(root, ['real', 'f.txt'])).toBe(join(root, 'real', 'f.txt'));
    expect(() => safeJoinOnDisk(root, ['link', 'f.txt'])).toThrow(/outside the mirror/);
    // a link to a folder inside the mirror is fine; a missing parent passes (the fs call fails on its own)
    symlinkSync(join(root, 'real'), join(root, 'inner'));
    expect(safeJoinOnDisk(root, ['inner', 'f.txt'])).toBe(join(root, 'inner', 'f.txt'));
    expect(safeJoinOnDisk(root, ['missing', 'f.txt'])).toBe(join(root, 'missing', 'f.txt'));
  });
});
