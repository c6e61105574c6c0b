/**
 * A rejection handler that says why the rejection may be ignored: the failure is reported
 * elsewhere, or harmless where it is (issue 22: no catch swallows an error in silence; the lint
 * refuses a bare `.catch(() => undefined)` in the app's code). `why` is for the reader.
 */
export function ignore(why: string): (reason: unknown) => undefined {
  void why;
  return () => undefined;
}
