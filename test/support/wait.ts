/**
 * THE polling helper of the tests and benchmarks: waits until `cond` holds, checking every
 * `pollMs`. The deadline only guards against a hang (it asserts nothing about speed): a test
 * waits on conditions, never on fixed sleeps.
 */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000, pollMs = 25): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (await cond()) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
