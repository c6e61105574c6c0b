/**
 * `npm run layers` (part of `npm test`): no cycle between folders (issue 22). Folders are the
 * units a reader learns the code by: when `a/` imports `b/` and `b/` imports `a/` (directly or
 * round a longer loop), neither can be read, tested or moved alone. A folder and its own
 * subfolders are one unit here (a folder's wiring may import its parts, which import its shared
 * modules); tests are left out (they may reach across). Prints each cycle with the imports that
 * make it, and exits 1 when there is one.
 */
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { dirname } from 'node:path';

const ROOTS = ['app', 'main', 'renderer', 'server'];

/** `a` is `b`, or one holds the other. */
const related = (a: string, b: string): boolean => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

async function main(): Promise<number> {
  const out = await cruise(ROOTS, {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
  });
  const result = out.output as ICruiseResult;
  const edges = new Map<string, Map<string, string>>();
  for (const m of result.modules) {
    const from = dirname(m.source);
    if (!ROOTS.some((r) => m.source.startsWith(`${r}/`))) continue;
    for (const d of m.dependencies) {
      if (!ROOTS.some((r) => d.resolved.startsWith(`${r}/`))) continue;
      const to = dirname(d.resolved);
      if (related(from, to)) continue;
      const row = edges.get(from) ?? edges.set(from, new Map()).get(from)!;
      if (!row.has(to)) row.set(to, `${m.source} -> ${d.resolved}`);
    }
  }
  const cycles = stronglyConnected(edges).filter((c) => c.length > 1);
  for (const c of cycles) {
    const inCycle = new Set(c);
    console.error(`folder cycle: ${c.join(', ')}`);
    for (const f of c) for (const [to, why] of edges.get(f) ?? []) if (inCycle.has(to)) console.error(`  ${why}`);
  }
  if (cycles.length === 0) console.log(`no folder cycles (${edges.size} folders with imports to other folders)`);
  return cycles.length === 0 ? 0 : 1;
}

/** Tarjan's strongly connected components of the folder graph. */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        comp.push(w);
        if (w === v) break;
      }
      out.push(comp.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

process.exitCode = await main();
