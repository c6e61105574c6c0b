/**
 * Tiers 1-3 of the offline index's search: objects with no term in the name, every term in
 * their (make, model, mime) combo. Combos with the same key prefix (field, index) form a
 * group; groups are visited in key order, each object of a group in number order (= rule-7
 * order within the group), and the walk stops once a group or an object cannot enter the page.
 */
import { compareKeys, matchDoc, type SortKey, type TopK } from '../../app/search/index.js';
import type { Hit, NamePass } from './name-pass.js';
import { listIter, mergeUnique } from './postings.js';

export function searchCombos(pass: NamePass, cover: readonly (readonly boolean[])[]): void {
  const { view, query, after } = pass;
  const top: TopK<Hit> = pass.local;
  const b = view.base;
  const terms = query.folded;
  const groups = new Map<string, { key: SortKey; combos: number[] }>();
  for (let c = 0; c < b.combos.length; c++) {
    if (!cover.every((cv) => cv[c])) continue;
    const combo = b.combos[c]!;
    const m = matchDoc({ id: '', name: '', cameraMake: combo.make, cameraModel: combo.model, mimeType: combo.mime }, query);
    if (!m) continue;
    const gk = `${m.key.field}:${m.key.index}`;
    const g = groups.get(gk);
    if (g) g.combos.push(c);
    else groups.set(gk, { key: m.key, combos: [c] });
  }
  const ordered = [...groups.values()].sort((x, y) => x.key.field - y.key.field || x.key.index - y.key.index);
  for (const g of ordered) {
    // Every object of the group has a key at least (field, false, index, 0, '', '').
    const bound = top.bound;
    if (bound && compareKeys({ ...g.key, wordStart: false, nameLength: 0, name: '', id: '' }, bound) >= 0) return;
    const lists = g.combos.map((c) => listIter(b.comboList, b.comboStart[c]!, b.comboStart[c + 1]!));
    const it = lists.length === 1 ? lists[0]! : mergeUnique(lists);
    for (const o of it) {
      if (pass.skip(o)) continue;
      const fname = view.fname(o);
      if (terms.some((t) => fname.includes(t))) continue;
      const { doc, folded } = view.docAt(o, fname);
      const m = matchDoc(doc, query, folded);
      if (!m) continue;
      if (after && compareKeys(m.key, after) <= 0) continue;
      if (!top.accepts(m.key)) return;
      top.push(m.key, { id: doc.id, match: m });
    }
  }
}
