/** The query shapes the name strategies apply to (the conditions of the table in index.ts). */
import type { NamePass } from '../name-pass.js';

/** One term that can be looked up (names hold no NUL, the blob's separator). */
export const oneTerm = (p: NamePass): boolean => p.terms.length === 1 && !p.terms[0]!.includes('\0');

/** One term of 1-2 code units (no trigram). */
export const oneShortTerm = (p: NamePass): boolean => oneTerm(p) && p.terms[0]!.length < 3;
