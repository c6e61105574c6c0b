/**
 * The table of name strategies, tried in order: the first that applies to the query and
 * does not decline fills the page's name matches (name-pass.ts drives them).
 *
 * | strategy | query | candidates |
 * |---|---|---|
 * | short-order | narrowed (filters), one term of 1-2 code units | its holders in answer order, filtered |
 * | narrow-list | narrowed (filters) to fewer objects than the terms' candidates | the kept objects |
 * | short-list | one term of 1-2 code units | its first-page list, when that proves the page |
 * | short-scan | one term of 1-2 code units | a scan of the folded-name blob |
 * | frequent-trigrams | one term, every trigram frequent | positional postings, word starts first |
 * | trigram | one term | intersection of trigram postings |
 * | multi-term | anything else | the driver term's candidates, or every term's merged |
 */
import type { NameStrategy } from '../name-pass.js';
import { frequentTrigrams } from './frequent-trigrams.js';
import { multiTerm } from './multi-term.js';
import { narrowList } from './narrow-list.js';
import { shortList } from './short-list.js';
import { shortOrder } from './short-order.js';
import { shortScan } from './short-scan.js';
import { trigram } from './trigram.js';

export const NAME_STRATEGIES: readonly NameStrategy[] = [
  shortOrder,
  narrowList,
  shortList,
  shortScan,
  frequentTrigrams,
  trigram,
  multiTerm,
];
