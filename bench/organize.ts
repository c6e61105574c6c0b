/**
 * `npm run bench:organize`: Organize on 1,000 photos against the real service over loopback,
 * through the real engine (outbox, If-Match, settle, the disk following): preview time,
 * enqueue time, time until all 1,000 renames are applied on the NAS and the placeholders
 * renamed on disk, then the same for the one Undo. Env: BENCH_N (default 1000).
 * Writes bench/results/organize.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyOrganize } from '../main/api/organize-handlers.js';
import { buildPlan } from '../main/organize/plan.js';
import { startOrganizeRig } from '../test/integration/organize/rig.js';
import { waitFor } from '../test/support/wait.js';

const N = Number(process.env['BENCH_N'] ?? '1000');
const name = (i: number): string => `IMG_${String(i).padStart(5, '0')}.JPG`;

const until = (cond: () => boolean, what: string, ms = 600_000): Promise<void> => waitFor(cond, what, ms, 10);

const ids: string[] = [];
const r = await startOrganizeRig((svc, root) => {
  const f = svc.admin.createFolder(root, 'Shoot').id;
  for (let i = 1; i <= N; i++)
    ids.push(
      svc.admin.createFile(f, name(i), {
        mimeType: 'image/jpeg',
        size: 1000,
        image: { cameraMake: 'Canon', cameraModel: 'EOS R', date: `2020:0${1 + (i % 9)}:1${i % 10} 12:00:00` },
      }).id,
    );
});
try {
  const args = { q: 'IMG in:Shoot', rename: '{date:YYYY-MM-DD} {counter:5}.{ext:lower}' };
  let t0 = performance.now();
  const plan = buildPlan(r.index, args);
  const previewMs = performance.now() - t0;
  if (plan.counts.ok !== N) throw new Error(`plan has ${plan.counts.ok} changes, expected ${N}`);
  const mark = r.svc.requests().length;
  t0 = performance.now();
  const out = await applyOrganize(r.engine, r.index, args);
  const enqueueMs = performance.now() - t0;
  const last = plan.items[plan.items.length - 1]!;
  await until(() => r.engine.status().outbox.pending === 0 && r.svc.admin.get(last.id)?.name === last.to.split('/').pop(), 'batch applied');
  const sentMs = performance.now() - t0;
  await until(() => existsSync(join(r.mirror, last.to)), 'disk follows');
  const diskMs = performance.now() - t0;
  const posts = r.svc
    .requests()
    .slice(mark)
    .filter((x) => x.method === 'POST').length;
  const batch = r.engine.actions.activity(50).find((a) => a.kind === 'organized')!;
  t0 = performance.now();
  await r.engine.actions.undo(batch.id);
  await until(
    () => r.engine.status().outbox.pending === 0 && r.svc.admin.get(last.id)?.name === last.from.split('/').pop(),
    'undo applied',
  );
  const undoMs = performance.now() - t0;
  await until(() => existsSync(join(r.mirror, last.from)), 'disk follows the undo');
  const undoDiskMs = performance.now() - t0;
  const res = {
    objects: N,
    queued: out.queued,
    previewMs: Math.round(previewMs),
    enqueueMs: Math.round(enqueueMs),
    appliedOnNasMs: Math.round(sentMs),
    placeholdersRenamedMs: Math.round(diskMs),
    renamesPerSecond: Math.round(N / (sentMs / 1000)),
    postRequests: posts,
    undoAppliedMs: Math.round(undoMs),
    undoOnDiskMs: Math.round(undoDiskMs),
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/organize.json',
    JSON.stringify({ date: new Date().toISOString(), node: process.version, results: [res] }, null, 2) + '\n',
  );
  process.stdout.write(`\norganize ${N} renames through the outbox (real service over loopback)\n| step | ms |\n|---|---|\n`);
  for (const [k, v] of Object.entries(res)) process.stdout.write(`| ${k} | ${v} |\n`);
} finally {
  await r.close();
}
