/**
 * `unitsOf`: which folders a walk lists together in one request. The same folders make the same
 * groups whatever order they come in; a folder added or gone changes the group it falls in, not
 * the others; big folders, folders of unknown size and ids a list cannot carry go alone.
 */
import { describe, expect, it } from 'vitest';
import { GROUP_MAX, groupKey, unitsOf, type Unit } from './walk.js';

const ids = (n: number, prefix = 'f'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i.toString(36)}x${(i * 7919) % 997}`);
const small = (list: string[], childCount = 3): { id: string; childCount: number | undefined }[] => list.map((id) => ({ id, childCount }));
const members = (u: Unit): string[] => (typeof u === 'string' ? [u] : u.ids);

describe('unitsOf', () => {
  it('puts small folders in groups, each folder in exactly one unit, the same groups in any order', () => {
    const list = small(ids(400));
    const units = unitsOf(list, 1000);
    const all = units.flatMap(members).sort();
    expect(all).toEqual(list.map((f) => f.id).sort());
    const groups = units.filter((u) => typeof u !== 'string');
    expect(groups.length).toBeGreaterThan(20);
    expect(units.length).toBeLessThan(list.length / 3);
    for (const g of groups) {
      expect(g.ids.length).toBeLessThanOrEqual(GROUP_MAX);
      expect(g.key).toBe(groupKey(g.ids));
    }
    const shuffled = [...list].sort((a, b) => (a.id.split('').reverse().join('') < b.id.split('').reverse().join('') ? -1 : 1));
    expect(unitsOf(shuffled, 1000)).toEqual(units);
  });

  it('a folder added or gone changes only the group it falls in', () => {
    const list = small(ids(300));
    const before = unitsOf(list, 1000).map((u) => members(u).join(','));
    const after = unitsOf(small([...ids(300), 'f-new-one']), 1000).map((u) => members(u).join(','));
    const changed = after.filter((u) => !before.includes(u));
    expect(changed.length).toBe(1);
    expect(changed[0]).toContain('f-new-one');
    const without = unitsOf(small(ids(300).filter((_, i) => i !== 150)), 1000).map((u) => members(u).join(','));
    expect(without.filter((u) => !before.includes(u)).length).toBeLessThanOrEqual(1);
  });

  it("a group's children fit in one page; big folders, unknown sizes and ids with a comma go alone", () => {
    const list = [
      ...small(ids(60), 90),
      { id: 'big', childCount: 251 },
      { id: 'unknown', childCount: undefined },
      { id: 'a,b', childCount: 1 },
    ];
    const units = unitsOf(list, 1000);
    for (const id of ['big', 'unknown', 'a,b']) expect(units).toContain(id);
    for (const u of units) if (typeof u !== 'string') expect(u.ids.length * 90).toBeLessThanOrEqual(1000);
    // a page of 4: only folders of at most one child are grouped, at most 4 children a group
    const tiny = unitsOf(small(ids(40), 1), 4);
    for (const u of tiny) expect(members(u).length).toBeLessThanOrEqual(4);
    expect(unitsOf(small(ids(40), 2), 4).every((u) => typeof u === 'string')).toBe(true);
  });

  it('empty folders fill a group up to GROUP_MAX', () => {
    const units = unitsOf(small(ids(500), 0), 1000);
    expect(Math.max(...units.map((u) => members(u).length))).toBeLessThanOrEqual(GROUP_MAX);
    expect(units.flatMap(members).length).toBe(500);
  });
});
