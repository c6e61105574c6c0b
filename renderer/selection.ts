/**
 * The hand-picked objects Search hands to Organize. A view's argument is one string, so the
 * ids travel here and the argument only says "take the selection" (a value no query can be:
 * queries are trimmed, this starts with a control character).
 */
export interface Picked {
  readonly ids: readonly string[];
  readonly names: readonly string[];
}

export const SELECTION_ARG = '\u0000selection';
let pending: Picked | null = null;

/** Keeps the selection for the next Organize view activation; returns the view argument. */
export function handOff(p: Picked): string {
  pending = { ids: [...p.ids], names: [...p.names] };
  return SELECTION_ARG;
}

/** The selection handed off, once. */
export function takeSelection(): Picked | null {
  const p = pending;
  pending = null;
  return p;
}
