/** The first index of ascending `list` holding a value >= x (binary search). */
export function lowerBound(list: Int32Array | Uint32Array, x: number): number {
  let lo = 0,
    hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
