/**
 * The README's example queries find something in the demo library the app starts with
 * (the embedded demo: 2000 objects, seed 1, main/embedded/embedded-service.ts), and
 * "holliday" gets its "did you mean". Read from the README itself, so an edit there is
 * checked here.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../main/client/service-client.js';
import { startTestService, type TestService } from '../../../server/testing.js';

const readme = readFileSync('README.md', 'utf8');
const tryLine = /Try searching the demo for:([^\n]*\n[^\n]*)/.exec(readme)?.[1] ?? '';
const shown = [...tryLine.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((q) => q !== 'holliday');
const cliQueries = [...readme.matchAll(/nas-mirror search ("[^"]+"|\S+) --state/g)].map((m) => m[1]!.replace(/^"|"$/g, ''));

let svc: TestService;
let client: ServiceClient;
beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 2000, seed: 1 } });
  client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token() });
});
afterAll(async () => {
  client.close();
  await svc.stop();
});

describe('the README example queries', () => {
  it('are there', () => {
    expect(shown.length).toBeGreaterThanOrEqual(4);
    expect(cliQueries.length).toBeGreaterThanOrEqual(2);
    expect(tryLine).toContain('`holliday`');
  });
  it('each finds something in the demo the app starts with', async () => {
    for (const q of [...shown, ...cliQueries]) {
      const page = await client.searchText(q, { limit: 5 });
      expect(page.matches.length, `README query ${q}`).toBeGreaterThan(0);
    }
    expect((await client.searchText('holliday', { limit: 5 })).matches).toHaveLength(0);
  });
});
