/** Layer rules of docs/architecture.md, checked by `npm run layers` (part of `npm test`). */
const NODE = '^(node:|fs$|path$|os$|child_process$|http$|https$|net$|crypto$|stream$|url$|util$|events$|worker_threads$)';
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    { name: 'app-is-pure', comment: 'app/ imports app/ only: no Node, no Electron, no DOM libraries.', severity: 'error',
      from: { path: '^app/', pathNot: '\\.test\\.ts$' }, to: { pathNot: '^app/' } },
    { name: 'renderer-no-node', comment: 'renderer/ imports app/ and browser code only.', severity: 'error',
      from: { path: '^renderer/', pathNot: '\\.test\\.ts$' }, to: { path: [NODE, '^(main|server)/', '^electron$', 'node_modules/electron/'] } },
    { name: 'electron-only-in-shell', comment: 'only main/shell/ imports electron.', severity: 'error',
      from: { pathNot: '^main/shell/' }, to: { path: ['^electron$', 'node_modules/electron/'] } },
    { name: 'engine-not-shell', comment: 'nothing outside main/shell/ imports main/shell/ (tests must not load electron).', severity: 'error',
      from: { pathNot: '^main/shell/' }, to: { path: '^main/shell/' } },
    { name: 'server-not-client', comment: 'the service and the app share only app/.', severity: 'error',
      from: { path: '^server/' }, to: { path: '^(main|renderer)/' } },
    { name: 'client-not-server', comment: 'the engine never imports the service (tests may).', severity: 'error',
      from: { path: '^(main|renderer|app)/', pathNot: '\\.test\\.ts$' }, to: { path: '^server/' } },
    { name: 'steps-not-engine', comment: 'pipeline steps (local, mirror, outbox, client, index) never import the engine: it drives them through narrow ports.', severity: 'error',
      from: { path: '^main/(local|mirror|outbox|client|index)/', pathNot: '\\.test\\.ts$' }, to: { path: '^main/engine/' } },
    { name: 'engine-not-hosts', comment: 'the engine never imports what hosts it (api, ui-server, cli, shell).', severity: 'error',
      from: { path: '^main/engine/' }, to: { path: '^main/(api|ui-server|cli|shell)/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
