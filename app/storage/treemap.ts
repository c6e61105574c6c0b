/**
 * Squarified treemap layout (Bruls, Huizing, van Wijk): rectangles whose areas are
 * proportional to the values, as close to squares as the greedy row-by-row method gets.
 * Pure; the storage view draws the result as plain SVG. Zero values get no rectangle.
 */

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Lays `values` (any order) into the rectangle; returns one rect per index (undefined for values <= 0). */
export function squarify(values: readonly number[], box: Rect): (Rect | undefined)[] {
  const out: (Rect | undefined)[] = values.map(() => undefined);
  const order = values
    .map((v, i) => ({ v, i }))
    .filter((x) => x.v > 0)
    .sort((a, b) => b.v - a.v);
  const total = order.reduce((s, x) => s + x.v, 0);
  if (total <= 0 || box.w <= 0 || box.h <= 0) return out;
  const scale = (box.w * box.h) / total;
  let free = { ...box };
  let row: { a: number; i: number }[] = [];
  const worst = (r: { a: number }[], side: number): number => {
    const s = r.reduce((t, x) => t + x.a, 0);
    const max = Math.max(...r.map((x) => x.a)),
      min = Math.min(...r.map((x) => x.a));
    return Math.max((side * side * max) / (s * s), (s * s) / (side * side * min));
  };
  const place = (r: { a: number; i: number }[]): void => {
    const s = r.reduce((t, x) => t + x.a, 0);
    if (free.w >= free.h) {
      const w = s / free.h;
      let y = free.y;
      for (const x of r) {
        const h = x.a / w;
        out[x.i] = { x: free.x, y, w, h };
        y += h;
      }
      free = { x: free.x + w, y: free.y, w: free.w - w, h: free.h };
    } else {
      const h = s / free.w;
      let x0 = free.x;
      for (const x of r) {
        const w = x.a / h;
        out[x.i] = { x: x0, y: free.y, w, h };
        x0 += w;
      }
      free = { x: free.x, y: free.y + h, w: free.w, h: free.h - h };
    }
  };
  for (const { v, i } of order) {
    const item = { a: v * scale, i };
    const side = Math.min(free.w, free.h);
    if (row.length === 0 || worst([...row, item], side) <= worst(row, side)) row.push(item);
    else {
      place(row);
      row = [item];
    }
  }
  if (row.length) place(row);
  return out;
}
