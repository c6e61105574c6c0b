/**
 * The definition of every `nas-mirror` command (app/cli/command-spec.ts): its arguments and
 * options with their words. The parser, --help, the usage line of an error and shell
 * completion all come from here; a command file reads its values through these names.
 * Data only: main.ts loads a command's code when it runs.
 */
import { defineCommand, type OptionSpec, type ProgramSpec } from '../../app/cli/command-spec.js';

const state = {
  type: 'string',
  value: 'DIR',
  complete: 'dir',
  description: "the state folder (default: the app's own data folder, the one the window uses)",
} as const satisfies OptionSpec;
const json = { type: 'boolean', description: 'print JSON' } as const satisfies OptionSpec;
const device = {
  type: 'string',
  value: 'FILE|URL',
  required: true,
  complete: 'file',
  description: 'the NAS: its device.json, or its address (http://nas.local:8080)',
} as const satisfies OptionSpec;
const tokenEnv = {
  type: 'string',
  value: 'VAR',
  description: 'read the access token from this environment variable (default: the OS keychain, see login)',
} as const satisfies OptionSpec;
const limit = { type: 'string', value: 'N', description: 'at most N results' } as const satisfies OptionSpec;
const pageToken = {
  type: 'string',
  value: 'T',
  description: 'the next page (the token a previous page printed)',
} as const satisfies OptionSpec;
const mirrorPath = {
  name: 'PATH',
  description: 'a file or folder in the mirror folder (or a path relative to it)',
  complete: 'file',
} as const;
/** A folder of the mirror as `ls`, `find` and `du` take it (main/cli/folder-arg.ts). */
const mirrorFolder = {
  name: 'FOLDER',
  description: 'a path such as Photos/2019 (/ for the top), the folder in the mirror folder (~/NAS/Photos), or an id',
  complete: 'dir',
} as const;
const decisionIds = { name: 'ID', variadic: true, description: 'ids from the list, or all' } as const;

export const login = defineCommand({
  name: 'login',
  summary: "sign in (the NAS's login page in a browser) or store a pasted token, in the OS keychain",
  positionals: [],
  options: {
    device,
    'token-stdin': { type: 'boolean', description: 'store an access token read from stdin (typed: not echoed) instead of signing in' },
  },
});

export const sync = defineCommand({
  name: 'sync',
  summary: 'one complete walk of the NAS into the state folder (search and browse offline after)',
  positionals: [],
  options: {
    device,
    state,
    'token-env': tokenEnv,
    concurrency: { type: 'string', value: 'N', description: 'folders read at once (default 8)' },
    once: { type: 'boolean', description: "one walk, then exit (required: continuous sync is run's job)" },
  },
});

export const search = defineCommand({
  name: 'search',
  summary: 'search the mirror offline, as the NAS would answer (operators: ext: kind: in: size: date: camera: on:)',
  positionals: [{ name: 'QUERY', description: 'words to find, operators allowed (quote it when it holds spaces)' }],
  options: { state, limit, 'page-token': pageToken, json },
  notes: ["example: nas-mirror search 'IMG kind:photo date:2019-05..2019-08 camera:canon'"],
});

export const ls = defineCommand({
  name: 'ls',
  summary: 'list a folder of the mirror offline',
  positionals: [{ ...mirrorFolder }],
  options: {
    state,
    json,
    limit,
    'page-token': pageToken,
    'order-by': {
      type: 'string',
      value: 'FIELD',
      complete: ['name', 'mTime', 'cTime', 'size'],
      description: 'name (default), mTime, cTime or size',
    },
    order: { type: 'string', value: 'asc|desc', complete: ['asc', 'desc'], description: 'the direction (default asc)' },
  },
});

export const find = defineCommand({
  name: 'find',
  summary: 'look a name up in a folder of the mirror offline (exact, case-sensitive)',
  positionals: [mirrorFolder, { name: 'NAME', description: 'the exact name' }],
  options: { state, json },
});

export const run = defineCommand({
  name: 'run',
  summary: 'keep a local folder and the NAS in step (the background engine, in this terminal)',
  positionals: [],
  options: {
    device,
    state,
    dir: {
      type: 'string',
      value: 'MIRROR',
      required: true,
      complete: 'dir',
      description: 'the mirror folder (a relative path is taken from the current folder)',
    },
    'token-env': tokenEnv,
    once: { type: 'boolean', description: 'one full round (walk, placeholders, rescan, replay), then exit' },
    'delete-limit': { type: 'string', value: 'N', description: 'hold deletes of more than N objects for confirmation (default 50)' },
    'delete-percent': { type: 'string', value: 'P', description: 'hold deletes of more than P % of the mirror (default 10)' },
    'rewalk-sec': { type: 'string', value: 'S', description: 'walk the NAS again every S seconds (default 60)' },
    'hold-ms': { type: 'string', value: 'MS', description: "wait MS for a move's other half before deciding (default 1000)" },
    ui: { type: 'boolean', description: 'also serve the window in a browser on 127.0.0.1' },
    'ui-port': { type: 'string', value: 'N', description: 'the port of --ui (default: any free one)' },
    verbose: { type: 'boolean', description: 'log the details too: each decision with its path and technical reason, and debug lines' },
    'log-json': { type: 'boolean', description: 'log JSON lines (for a file or a program) instead of lines for people' },
  },
});

export const status = defineCommand({
  name: 'status',
  summary: "the mirror's state: outbox, conflicts, held deletes, local only, engine",
  positionals: [],
  options: { state, json },
});

export const held = defineCommand({
  name: 'held',
  summary: 'deletes held for your confirmation: list them, or decide',
  positionals: [],
  options: { state, json },
  subcommands: [
    { name: 'approve', summary: 'delete them on the NAS after all', positionals: [decisionIds], accepts: ['state'] },
    { name: 'reject', summary: 'keep them: put back what was deleted here', positionals: [decisionIds], accepts: ['state'] },
    {
      name: 'renamed',
      summary: 'a held "renamed or deleted?" was renamed to PATH',
      accepts: ['state'],
      positionals: [
        { name: 'ID', description: 'the id "nas-mirror held" shows' },
        { name: 'PATH', description: 'one of the places its line lists' },
      ],
    },
  ],
});

export const uploads = defineCommand({
  name: 'uploads',
  summary: 'new files and folders that wait for your word before they upload (many at once): list them, or decide',
  positionals: [],
  options: { state, json },
  subcommands: [
    { name: 'approve', summary: 'upload them to the NAS', positionals: [decisionIds], accepts: ['state'] },
    { name: 'reject', summary: 'keep them on this computer only (listed as local only)', positionals: [decisionIds], accepts: ['state'] },
  ],
});

export const conflicts = defineCommand({
  name: 'conflicts',
  summary: 'changes the NAS did not take, and files changed here and on the NAS: list them, or decide',
  positionals: [],
  options: { state, json },
  subcommands: [
    { name: 'reapply', summary: 'send your change again, over what the NAS holds now', positionals: [decisionIds], accepts: ['state'] },
    { name: 'drop', summary: 'keep what the NAS holds: your change is dropped', positionals: [decisionIds], accepts: ['state'] },
    {
      name: 'keep-mine',
      summary: 'a file changed on both sides: your version becomes the NAS version; the conflicted copy goes',
      positionals: [decisionIds],
      accepts: ['state'],
    },
    {
      name: 'keep-nas',
      summary: "a file changed on both sides: keep the NAS's version; your conflicted copy goes",
      positionals: [decisionIds],
      accepts: ['state'],
    },
    { name: 'keep-both', summary: 'a file changed on both sides: keep both as they are', positionals: [decisionIds], accepts: ['state'] },
  ],
});

export const undo = defineCommand({
  name: 'undo',
  summary: 'undo a rename, a move or an organize batch',
  positionals: [{ name: 'OPERATION', description: 'the number after "#" of a rename, a move or an organize batch in "nas-mirror log"' }],
  options: { state },
});

export const log = defineCommand({
  name: 'log',
  summary: 'the activity log, newest first: every decision in plain words (--details: the technical reason too)',
  positionals: [],
  options: {
    state,
    limit: { type: 'string', value: 'N', description: 'the last N lines (default 100)' },
    details: { type: 'boolean', description: 'each line with the path and the technical reason the app recorded' },
    json,
  },
});

export const organize = defineCommand({
  name: 'organize',
  summary: 'bulk rename and/or move what a search finds (or objects picked by id), by pattern; one undo',
  positionals: [{ name: 'QUERY', optional: true, description: 'what to organize, operators allowed (or --ids/--ids-from instead)' }],
  options: {
    state,
    rename: { type: 'string', value: 'PATTERN', description: "the new name, e.g. '{date:YYYY-MM-DD} {counter:3}.{ext:lower}'" },
    move: { type: 'string', value: 'PATTERN', description: "the target folder, e.g. 'Photos/Raw/{date:YYYY}'" },
    ids: { type: 'string', value: 'ID,ID,...', description: 'the objects, in this order (ids as in search --json)' },
    'ids-from': { type: 'string', value: 'FILE', complete: 'file', description: 'the objects, one id a line (- reads stdin)' },
    'dry-run': { type: 'boolean', description: 'show the plan only: nothing is queued' },
    json,
  },
  notes: ['tokens: {name} {ext} {ext:lower} {date:YYYY-MM-DD} {camera} {counter} {counter:3} {parent}'],
});

const keepForm = (name: string, summary: string, description: string = mirrorPath.description) =>
  defineCommand({ name, summary, positionals: [{ ...mirrorPath, description }], options: { state } });

export const get = keepForm(
  'get',
  'download a file of the mirror (a placeholder) through the running engine; prints its path',
  'a file in the mirror folder (or a path relative to it)',
);
export const open = keepForm(
  'open',
  "get, then open it with the system's default app",
  'a file in the mirror folder (or a path relative to it)',
);
export const pin = keepForm('pin', 'keep a file or folder on this device (downloaded now, kept current)');
export const unpin = keepForm('unpin', 'stop keeping it current (what is here stays until freed)');
export const free = keepForm('free', 'free up space: downloads back to placeholders (files you changed are kept)');

export const du = defineCommand({
  name: 'du',
  summary: 'where the space goes, offline: folders by size, totals by kind and year, duplicates',
  positionals: [{ ...mirrorFolder, optional: true, description: `${mirrorFolder.description} (default: the top)` }],
  options: { state, depth: { type: 'string', value: 'N', description: 'sub-folders down to N levels (default 1)' }, json },
});

export const ui = defineCommand({
  name: 'ui',
  summary: 'the app headless: its window in a browser on 127.0.0.1',
  positionals: [],
  options: {
    state,
    port: { type: 'string', value: 'N', description: 'the port (default: any free one)' },
    device: { ...device, required: false },
    dir: { type: 'string', value: 'MIRROR', complete: 'dir', description: 'the mirror folder' },
  },
});

export const completion = defineCommand({
  name: 'completion',
  summary: 'print the shell completion script (bash or zsh)',
  positionals: [{ name: 'SHELL', description: 'bash or zsh', complete: ['bash', 'zsh'] }],
  options: {},
  notes: ['bash: source <(nas-mirror completion bash)', 'zsh:  source <(nas-mirror completion zsh)   (after compinit)'],
});

export const MIRROR_PROGRAM: ProgramSpec = {
  bin: 'nas-mirror',
  summary: 'Mirror a NAS into a local folder, search and browse it offline, reorganise it.',
  usageLayout: 'inline',
  commands: [
    login,
    sync,
    search,
    ls,
    find,
    run,
    status,
    held,
    uploads,
    conflicts,
    undo,
    log,
    organize,
    get,
    open,
    pin,
    unpin,
    free,
    du,
    ui,
    completion,
  ],
};
