import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assignLocalNames, localNameProblem, mappedLocalName, nameKey, remoteNameFor, RESERVED_DIR } from './local-names.js';
import { POSIX_TRAITS, WINDOWS_TRAITS, type FsTraits } from './fs-traits.js';
import { safeJoin, isInsideRoot } from './path-safety.js';
import { nameProblem } from '../../app/model/names.js';

const traitsArb = fc.record({ caseInsensitive: fc.boolean(), windowsNames: fc.boolean(), maxNameBytes: fc.integer({ min: 40, max: 255 }) });
const nameArb = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.constantFrom('CON', 'con.txt', 'a.', 'b ', 'x:y', 'A', 'a', 'nul.tar.gz', 'é', 'é', '.nas-mirror', 'a?b*c'),
    fc.string({ minLength: 200, maxLength: 300 }),
  )
  .filter((n) => nameProblem(n) === undefined);

describe('local names', () => {
  it('maps what Windows forbids and keeps what it allows', () => {
    const w = WINDOWS_TRAITS;
    for (const bad of ['CON', 'con.txt', 'a.', 'b ', 'x:y', 'q?', 'LPT1.log', 'tab\there']) {
      expect(localNameProblem(bad, w)).toBeDefined();
      const m = mappedLocalName(bad, 'id1', w);
      expect(localNameProblem(m, w)).toBeUndefined();
    }
    expect(localNameProblem('normal.txt', w)).toBeUndefined();
    expect(localNameProblem('x:y', POSIX_TRAITS)).toBeUndefined();
  });

  it('case-equal siblings on a case-insensitive fs: the smallest id keeps the name', () => {
    const m = assignLocalNames(
      [
        { id: 'b', name: 'Photo.JPG' },
        { id: 'a', name: 'photo.jpg' },
      ],
      { ...POSIX_TRAITS, caseInsensitive: true },
    );
    expect(m.get('a')).toBe('photo.jpg');
    expect(m.get('b')).toMatch(/^Photo~[0-9a-z]+\.JPG$/);
  });

  it('reserves our own folder name at the root', () => {
    const m = assignLocalNames([{ id: 'x', name: RESERVED_DIR }], POSIX_TRAITS, [RESERVED_DIR]);
    expect(m.get('x')).not.toBe(RESERVED_DIR);
  });

  it('property: every assigned name is holdable, unique, deterministic and plain when it can be', () => {
    fc.assert(
      fc.property(
        traitsArb,
        fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: nameArb }), {
          selector: (s) => s.id,
          maxLength: 12,
        }),
        (traits: FsTraits, sibs) => {
          const m = assignLocalNames(sibs, traits, [RESERVED_DIR]);
          const again = assignLocalNames([...sibs].reverse(), traits, [RESERVED_DIR]);
          const keys = new Set<string>([nameKey(RESERVED_DIR, traits)]);
          for (const s of sibs) {
            const n = m.get(s.id)!;
            expect(again.get(s.id)).toBe(n);
            expect(localNameProblem(n, traits)).toBeUndefined();
            expect(nameProblem(n)).toBeUndefined();
            expect(keys.has(nameKey(n, traits))).toBe(false);
            keys.add(nameKey(n, traits));
            const clash = sibs.some((o) => o.id < s.id && nameKey(o.name, traits) === nameKey(s.name, traits));
            if (localNameProblem(s.name, traits) === undefined && !clash && nameKey(s.name, traits) !== nameKey(RESERVED_DIR, traits)) {
              // not always plain: a mapped sibling never steals a plain name, so it is plain
              expect(n).toBe(s.name);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a rename keeps a mapped remote name only when the local name is unchanged', () => {
    expect(remoteNameFor('CON~abc.txt', 'CON~abc.txt', 'CON.txt')).toBe('CON.txt');
    expect(remoteNameFor('new.txt', 'CON~abc.txt', 'CON.txt')).toBe('new.txt');
  });
});

describe('path safety', () => {
  it('refuses hostile segments', () => {
    for (const s of ['..', '.', '', 'a/b', '../x', 'x\0y']) expect(() => safeJoin('/m', [s])).toThrow();
    expect(safeJoin('/m', ['a', 'b'])).toBe('/m/a/b');
  });
  it('property: safeJoin never returns a path outside the root', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('..', '.', '/', '../..', '/etc', 'a/../..')), { maxLength: 5 }),
        (segs) => {
          try {
            const p = safeJoin('/mirror/root', segs);
            expect(isInsideRoot('/mirror/root', p)).toBe(true);
            expect(segs.length === 0 ? p === '/mirror/root' : p.startsWith('/mirror/root/')).toBe(true);
          } catch (e) {
            expect((e as { code?: string }).code).toBe('UnsafeName');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
