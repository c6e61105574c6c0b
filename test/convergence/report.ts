/**
 * Sorting violations into kinds (for the soak report and the test's summary) and the
 * environment knobs shared by the test and the soak.
 */

/** The kind of a violation, from its wording in check.ts / run.ts / execute.ts. */
export function violationKind(v: string): string {
  const kinds: [RegExp, string][] = [
    [/^the engine did not take in the disk's changes/, 'late: a disk change taken in only when asked to sync'],
    [/^LOST on the NAS/, 'lost: a NAS object nobody deleted'],
    [/^the engine deleted what the user did not delete/, 'wrong delete sent'],
    [/^the engine sent a name the user never gave/, 'wrong name sent'],
    [/^the engine sent a move the user never made/, 'wrong move sent'],
    [/^a change applied more than once|^a delete applied more than once/, 'applied twice'],
    [/^a name nobody asked for|^a folder nobody asked for/, 'NAS state nobody asked for'],
    [/^the disk differs from the NAS/, 'disk differs from the NAS'],
    [/^a stale local-only row/, 'stale local-only row'],
    [/^the user's own file/, "the user's own file lost or unlisted"],
    [/^nas-mirror run was still running/, 'no exit after SIGTERM'],
    [/^the engine exited on its own|^the engine did not start|^the engine is not running|^a clean stop/, 'engine exit'],
    [/^the system did not settle/, 'no settle'],
    [/^a mass delete over the delete limit was not held|^held deletes still listed/, 'held deletes'],
    [/^the run itself failed/, 'harness error'],
  ];
  for (const [re, k] of kinds) if (re.test(v)) return k;
  return 'other';
}

export function failureKinds(r: { failure?: { violations: readonly string[] } | undefined }): string[] {
  return [...new Set((r.failure?.violations ?? []).map(violationKind))].sort();
}

export const envNumber = (name: string, dflt: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' || Number.isNaN(Number(v)) ? dflt : Number(v);
};
