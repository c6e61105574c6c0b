/**
 * The definition of every `nas-service` command (app/cli/command-spec.ts): the parser, --help,
 * the usage line of an error and shell completion all come from here.
 */
import { defineCommand, type OptionSpec, type ProgramSpec } from '../../app/cli/command-spec.js';

const data = {
  type: 'string',
  value: 'DIR',
  required: true,
  complete: 'dir',
  description: "the service's data folder",
} as const satisfies OptionSpec;

export const serve = defineCommand({
  name: 'serve',
  summary: 'serve the NAS interface (prints: listening on http://HOST:PORT; writes DIR/device.json)',
  positionals: [],
  options: {
    data,
    host: { type: 'string', value: '127.0.0.1', description: 'the address to listen on (default 127.0.0.1)' },
    port: { type: 'string', value: 'N', description: 'the port (default: any free one)' },
    'token-ttl': { type: 'string', value: 'SECONDS', description: 'lifetime of sign-in access tokens (default 24 h)' },
    quirks: { type: 'string', value: 'real-device|NAME,...', description: 'behave like a real device (or some of its quirks)' },
    'log-json': { type: 'boolean', description: 'log JSON lines (for a file or a program) instead of lines for people' },
  },
});

export const user = defineCommand({
  name: 'user',
  summary: "add a user, or set a user's password (for the sign-in page)",
  abstract: true,
  positionals: [],
  options: {
    data,
    'password-stdin': { type: 'boolean', description: 'the password is read from stdin (a pipe or a file, never an argument)' },
  },
  subcommands: [
    {
      name: 'add',
      summary: 'add a user (without a password: tokens only)',
      positionals: [{ name: 'NAME', description: "the user's name" }],
    },
    {
      name: 'password',
      summary: "set a user's password (read from stdin)",
      positionals: [{ name: 'NAME', description: "the user's name" }],
      requires: ['password-stdin'],
    },
  ],
});

export const token = defineCommand({
  name: 'token',
  summary: 'mint an access token for a user (printed), or revoke one',
  positionals: [{ name: 'NAME', description: "the user's name" }],
  accepts: ['scope', 'data', 'ttl'],
  options: {
    scope: {
      type: 'string',
      value: 'nas_read_write|nas_read_only',
      required: true,
      complete: ['nas_read_write', 'nas_read_only'],
      description: 'what the token may do',
    },
    data,
    ttl: { type: 'string', value: 'SECONDS', description: "its lifetime (default: the service's)" },
    'token-stdin': { type: 'boolean', description: 'the token to revoke is read from stdin (a pipe or a file, never an argument)' },
  },
  subcommands: [
    {
      name: 'revoke',
      summary: 'revoke a token (read from stdin): it stops working at once',
      positionals: [],
      accepts: ['data', 'token-stdin'],
      requires: ['token-stdin'],
    },
  ],
});

export const grant = defineCommand({
  name: 'grant',
  summary: 'grant a user a permission on an object',
  positionals: [
    { name: 'NAME', description: "the user's name" },
    { name: 'ID', description: "the object's id (from the listings)" },
    { name: 'ReadFile|WriteFile|FileOwner', description: 'the permission', complete: ['ReadFile', 'WriteFile', 'FileOwner'] },
  ],
  options: { data },
});

export const importCmd = defineCommand({
  name: 'import',
  summary: "import a local folder's contents (EXIF included) into a user's root, or into folder ID",
  positionals: [{ name: 'PATH', description: 'the local folder', complete: 'dir' }],
  options: {
    user: { type: 'string', value: 'NAME', required: true, description: 'whose library' },
    data,
    into: { type: 'string', value: 'ID', description: "the folder to import into (default: the user's root)" },
  },
});

export const demo = defineCommand({
  name: 'demo',
  summary: 'create a deterministic demo library',
  positionals: [],
  options: {
    data,
    user: { type: 'string', value: 'NAME', description: 'its owner (default demo)' },
    objects: { type: 'string', value: 'N', description: 'how many objects (default 10,000; up to 10,000,000)' },
    seed: { type: 'string', value: 'S', description: 'the random seed (default 1)' },
  },
});

export const completion = defineCommand({
  name: 'completion',
  summary: 'print the shell completion script (bash or zsh)',
  positionals: [{ name: 'SHELL', description: 'bash or zsh', complete: ['bash', 'zsh'] }],
  options: {},
  notes: ['bash: source <(nas-service completion bash)', 'zsh:  source <(nas-service completion zsh)   (after compinit)'],
});

export const SERVICE_PROGRAM: ProgramSpec = {
  bin: 'nas-service',
  summary: 'The reference NAS service: serve a library over the NAS interface, and administer it.',
  usageLayout: 'block',
  commands: [serve, user, token, grant, importCmd, demo, completion],
};
