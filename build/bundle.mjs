#!/usr/bin/env node
// Bundles what Electron and the browser load (Electron cannot run tsx):
//   dist/renderer/{index.html,app.js,style.css}  the window (IIFE, browser)
//   dist/main/shell/main.cjs, preload.cjs          the Electron main process and its preload
//   dist/main/host/engine-entry.cjs                the engine's utility process
//   dist/main/index/build-worker.cjs               the offline index's build worker (main/index/build.ts)
//   dist/server/nas-service.mjs                    the reference service, for the embedded default
//   dist/main/cli/nas-mirror.mjs                   the command line as the app ships it (no tsx):
//                                                  what bench:scale measures the engine in
//   dist/icons/                                    app and tray icons
// Native modules (better-sqlite3, keytar) and electron stay external. Usage:
//   node build/bundle.mjs [renderer|app|all]   (default all)
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Outputs are replaced atomically (write aside, rename), so a running server or a parallel
// test never reads a half-written bundle.
function writeAtomic(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}
// Native modules come from NAS_MIRROR_NATIVE_DIR when set (`npm start` with Electron: built
// for Electron's ABI apart from node_modules), else from node_modules as usual.
const NATIVE_REQUIRE = `const __nativeRequire = (m) => { const d = process.env.NAS_MIRROR_NATIVE_DIR; if (d) { const p = require('node:path').join(d, m); if (require('node:fs').existsSync(p)) return require(p); } return require(m); };`;

async function bundle(opts) {
  const { natives, ...esbuildOpts } = opts;
  const r = await build({ ...esbuildOpts, write: false, banner: { js: [esbuildOpts.banner?.js, natives ? NATIVE_REQUIRE : ''].filter(Boolean).join('\n') } });
  for (const f of r.outputFiles) {
    // In CommonJS, load external native modules with require (an ESM import() of a bare
    // name from inside an asar is not something to count on).
    let text = f.text;
    if (opts.format === 'cjs') text = text.replace(/\bimport\("(keytar|better-sqlite3)"\)/g, 'Promise.resolve().then(() => require("$1"))');
    if (opts.natives) {
      text = text
        .replace(/\brequire\("(keytar|better-sqlite3)"\)/g, '__nativeRequire("$1")')
        .replace(/^import (\w+) from "(keytar|better-sqlite3)";$/gm, 'const $1 = __nativeRequire("$2");');
    }
    writeAtomic(f.path, text);
  }
}
const EXTERNAL = ['electron', 'better-sqlite3', 'keytar', 'fsevents', 'bufferutil', 'utf-8-validate'];

/** The window: one IIFE script plus its page and stylesheet. */
export async function buildRenderer(outDir = join(ROOT, 'dist', 'renderer')) {
  mkdirSync(outDir, { recursive: true });
  await bundle({
    entryPoints: [join(ROOT, 'renderer', 'main.ts')],
    outfile: join(outDir, 'app.js'),
    bundle: true, format: 'iife', platform: 'browser', target: ['chrome120'],
    sourcemap: false, minify: false, legalComments: 'none', logLevel: 'warning',
  });
  for (const f of ['index.html', 'style.css']) writeAtomic(join(outDir, f), readFileSync(join(ROOT, 'renderer', f)));
}

// CommonJS output has no import.meta; give code that uses import.meta.url the file's URL.
const CJS_META = {
  banner: { js: "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__import_meta_url' },
};

/** The Electron main process, the engine's process, the preload, the embedded default's service, and the icons. */
export async function buildApp() {
  cpSync(join(ROOT, 'build', 'icons'), join(ROOT, 'dist', 'icons'), { recursive: true });
  const common = { bundle: true, platform: 'node', target: ['node20'], external: EXTERNAL, logLevel: 'warning', legalComments: 'none' };
  await bundle({ ...common, ...CJS_META, natives: true, entryPoints: [join(ROOT, 'main', 'shell', 'main.ts')], outfile: join(ROOT, 'dist', 'main', 'shell', 'main.cjs'), format: 'cjs' });
  await bundle({ ...common, ...CJS_META, natives: true, entryPoints: [join(ROOT, 'main', 'host', 'engine-entry.ts')], outfile: join(ROOT, 'dist', 'main', 'host', 'engine-entry.cjs'), format: 'cjs' });
  // the engine's bundles start it as a worker thread, one folder up from theirs (workerScript)
  await bundle({ ...common, ...CJS_META, natives: true, entryPoints: [join(ROOT, 'main', 'index', 'build-worker.ts')], outfile: join(ROOT, 'dist', 'main', 'index', 'build-worker.cjs'), format: 'cjs' });
  await bundle({ ...common, entryPoints: [join(ROOT, 'main', 'shell', 'preload.ts')], outfile: join(ROOT, 'dist', 'main', 'shell', 'preload.cjs'), format: 'cjs', external: ['electron'] });
  const esmRequire = { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" };
  await bundle({ ...common, natives: true, entryPoints: [join(ROOT, 'server', 'cli.ts')], outfile: join(ROOT, 'dist', 'server', 'nas-service.mjs'), format: 'esm', banner: esmRequire });
  await bundle({ ...common, natives: true, entryPoints: [join(ROOT, 'main', 'cli', 'main.ts')], outfile: join(ROOT, 'dist', 'main', 'cli', 'nas-mirror.mjs'), format: 'esm', banner: esmRequire });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const what = process.argv[2] ?? 'all';
  if (what === 'renderer' || what === 'all') await buildRenderer();
  if (what === 'app' || what === 'all') await buildApp();
}
