/** Layer rules of docs/architecture.md, checked by `npm run layers` (part of `npm test`). */
const NODE = '^(node:|fs$|path$|os$|child_process$|http$|https$|net$|crypto$|stream$|url$|util$|events$|worker_threads$)';
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'app-is-pure',
      comment: 'app/ imports app/ only: no Node, no Electron, no DOM libraries.',
      severity: 'error',
      from: { path: '^app/', pathNot: '\\.test\\.ts$' },
      to: { pathNot: '^app/' },
    },
    {
      name: 'renderer-no-node',
      comment: 'renderer/ imports app/ and browser code only.',
      severity: 'error',
      from: { path: '^renderer/', pathNot: '\\.test\\.ts$' },
      to: { path: [NODE, '^(main|server)/', '^electron$', 'node_modules/electron/'] },
    },
    {
      name: 'electron-only-in-shell',
      comment: 'only main/shell/ imports electron.',
      severity: 'error',
      from: { pathNot: '^main/shell/' },
      to: { path: ['^electron$', 'node_modules/electron/'] },
    },
    {
      name: 'engine-not-shell',
      comment: 'nothing outside main/shell/ imports main/shell/ (tests must not load electron).',
      severity: 'error',
      from: { pathNot: '^main/shell/' },
      to: { path: '^main/shell/' },
    },
    // Inside main/ (docs/architecture.md, Runtime): shell -> host -> api -> engine; the UI
    // server only serves a contract it is handed; settings are below everything that runs.
    {
      name: 'api-not-ui-server',
      comment: 'main/api answers the contract; the UI server is wired by a host (cli ui, host/run-ui), never by api.',
      severity: 'error',
      from: { path: '^main/api/' },
      to: { path: '^main/ui-server/' },
    },
    {
      name: 'api-not-host',
      comment: 'main/api is run by a host (main/host, the command line), never the other way round.',
      severity: 'error',
      from: { path: '^main/api/' },
      to: { path: '^main/(host|cli)/' },
    },
    {
      name: 'ui-server-stands-alone',
      comment: 'the UI server serves handlers and events it is given: it imports no api, host or engine.',
      severity: 'error',
      from: { path: '^main/ui-server/', pathNot: '\\.test\\.ts$' },
      to: { path: '^main/(api|host|engine|cli)/' },
    },
    {
      name: 'settings-not-api',
      comment: 'settings are read by the api and hosts; they import none of them.',
      severity: 'error',
      from: { path: '^main/settings/', pathNot: '\\.test\\.ts$' },
      to: { path: '^main/(api|host|ui-server|cli|engine)/' },
    },
    {
      name: 'host-not-cli',
      comment: 'main/host is used by the command line and the shell, never the other way round.',
      severity: 'error',
      from: { path: '^main/host/' },
      to: { path: '^main/cli/' },
    },
    {
      name: 'server-not-client',
      comment: 'the service and the app share only app/.',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^(main|renderer)/' },
    },
    {
      name: 'client-not-server',
      comment: 'the engine never imports the service (tests may).',
      severity: 'error',
      from: { path: '^(main|renderer|app)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^server/' },
    },
    {
      name: 'steps-not-engine',
      comment:
        'pipeline steps (local, mirror, mirror-move, outbox, client, index, organize, storage) and what sits under them (state, auth, connection, keychain, log) never import the engine: it drives them through narrow ports (e.g. organize/port.ts).',
      severity: 'error',
      from: {
        path: '^main/(local|mirror|mirror-move|outbox|client|index|organize|storage|state|auth|connection|keychain|log)/',
        pathNot: '\\.test\\.ts$',
      },
      to: { path: '^main/engine/' },
    },
    {
      name: 'engine-not-hosts',
      comment: 'the engine never imports what hosts it (api, host, ui-server, cli, shell), nor do its tests.',
      severity: 'error',
      from: { path: '^main/engine/' },
      to: { path: '^main/(api|host|ui-server|cli|shell)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
