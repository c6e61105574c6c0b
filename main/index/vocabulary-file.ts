/**
 * The word vocabulary on disk (`<state>/index/vocabulary.json`), next to the text index and
 * stamped with the same store generation: a file of another generation is stale and is
 * ignored (the vocabulary is then rebuilt from the store on first use). Written to a
 * temporary file and renamed (atomic).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VocabularyJSON } from './vocabulary.js';

/** 2 since s35: the words sorted and their counts (1 held minisearch document ids; such a file is rebuilt). */
const FORMAT = 'nas-mirror-vocabulary/2';

export const vocabularyFile = (stateDir: string): string => join(stateDir, 'index', 'vocabulary.json');

interface Saved {
  format: string;
  generation: number;
  vocabulary: VocabularyJSON;
}

export function saveVocabulary(stateDir: string, generation: number, vocabulary: VocabularyJSON): void {
  const file = vocabularyFile(stateDir);
  mkdirSync(join(stateDir, 'index'), { recursive: true });
  const saved: Saved = { format: FORMAT, generation, vocabulary };
  writeFileSync(`${file}.tmp`, JSON.stringify(saved));
  renameSync(`${file}.tmp`, file);
}

/** The saved vocabulary if it is of `generation`; undefined when missing, stale or unreadable. */
export function loadVocabulary(stateDir: string, generation: number): VocabularyJSON | undefined {
  const file = vocabularyFile(stateDir);
  if (!existsSync(file)) return undefined;
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Saved;
    if (saved.format !== FORMAT || saved.generation !== generation) return undefined;
    const v = saved.vocabulary;
    if (!Array.isArray(v.words) || !Array.isArray(v.counts) || v.words.length !== v.counts.length) return undefined;
    return v;
  } catch {
    return undefined;
  }
}

/** True when a saved vocabulary of `generation` exists (reads only the file's first bytes). */
export function hasVocabulary(stateDir: string, generation: number): boolean {
  const file = vocabularyFile(stateDir);
  if (!existsSync(file)) return false;
  const head = Buffer.alloc(200);
  const fd = openSync(file, 'r');
  let got: number;
  try {
    got = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const m = /^\{"format":"([^"]*)","generation":(\d+)/.exec(head.toString('utf8', 0, got));
  return m !== null && m[1] === FORMAT && Number(m[2]) === generation;
}
