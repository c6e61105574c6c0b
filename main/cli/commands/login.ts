/**
 * `nas-mirror login --device FILE|URL [--token-stdin]`: stores the access token in the OS
 * keychain under the device's address. Says clearly (exit 1) when no keychain exists.
 * The token is read from stdin (never from an argument, which `ps` would show): typed on a
 * terminal it is read in raw mode without echo; `--token-stdin` (or a pipe) reads all of stdin.
 */
import { AppError } from '../../../app/errors.js';
import { HttpTransport } from '../../client/transport.js';
import { loadDevice } from '../../connection/device.js';
import { openKeychain } from '../../keychain/keychain.js';
import { need, parseArgs } from '../args.js';
import { readAll, type Command } from '../io.js';
import { canReadSilently, readSecretLine } from '../read-secret.js';
import { accountOf } from '../state.js';

export const run: Command = async (argv, io) => {
  const p = parseArgs(argv, ['device'], ['token-stdin']);
  const transport = new HttpTransport();
  try {
    const candidates = await loadDevice(need(p, 'device'), transport);
    const kc = await openKeychain();
    if (kc.kind === 'memory') {
      io.stderr.write(`nas-mirror login: ${kc.reason ?? 'no OS keychain'}.\nThe token was NOT stored. Without a keychain, pass it to sync with --token-env VAR.\n`);
      return 1;
    }
    let token: string;
    if (!p.flags.has('token-stdin') && canReadSilently(io.stdin)) {
      io.stderr.write('Access token (not shown): ');
      token = (await readSecretLine(io.stdin, io.stderr)).trim();
    } else {
      token = (await readAll(io.stdin)).trim();
    }
    if (token === '' || /\s/.test(token)) throw new AppError('BadConfig', 'no token on stdin (or it holds white space)');
    await kc.set(accountOf(candidates), token);
    io.stdout.write(`token stored in the OS keychain for ${accountOf(candidates)}\n`);
    return 0;
  } finally {
    transport.close();
  }
};
