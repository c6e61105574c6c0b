/**
 * `nas-mirror login --device FILE|URL [--token-stdin]`: signs in to the NAS and keeps the
 * sign-in in the OS keychain under the device's address. Without `--token-stdin` it signs
 * in the way desktop apps do (RFC 8252): prints the NAS's login page URL, waits for the
 * browser to come back to a loopback address on 127.0.0.1, and stores the refresh token
 * (the access token is renewed from it by every later command). `--token-stdin` stores a
 * pasted access token instead (devices without the sign-in page): typed on a terminal it is
 * read without echo, from a pipe all of stdin is read; never from an argument (`ps`).
 * Says clearly (exit 1) when no keychain exists.
 */
import { AppError } from '../../../app/errors.js';
import { encodeRefresh } from '../../auth/credential.js';
import { startSignIn } from '../../auth/sign-in.js';
import { HttpTransport } from '../../client/transport.js';
import { connect } from '../../connection/connect.js';
import { loadDevice } from '../../connection/device.js';
import { openKeychain } from '../../keychain/keychain.js';
import { readAll, type CommandOf } from '../io.js';
import type { login as spec } from '../specs.js';
import { canReadSilently, readSecretLine } from '../read-secret.js';
import { accountOf } from '../state.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const transport = new HttpTransport();
  try {
    const candidates = await loadDevice(args.need('device'), transport);
    const kc = await openKeychain();
    if (kc.kind === 'memory') {
      io.stderr.write(
        `nas-mirror login: ${kc.reason ?? 'no OS keychain'}.\n` +
          'The sign-in was NOT stored. Without a keychain, pass an access token to the commands with --token-env VAR.\n',
      );
      return 1;
    }
    const account = accountOf(candidates);
    if (!args.flag('token-stdin')) {
      // Any HTTP answer (401 without a token) says the address works.
      const conn = await connect(candidates, transport, '');
      const si = await startSignIn({ baseUrl: conn.baseUrl, transport });
      io.stdout.write(`Open this page in your browser and sign in to the NAS:\n\n  ${si.url}\n\n`);
      io.stderr.write('Waiting for the browser to come back (Ctrl-C to give up)...\n');
      const onSig = (): void => si.cancel();
      process.once('SIGINT', onSig);
      try {
        const t = await si.done;
        await kc.set(account, encodeRefresh(t.refreshToken));
      } finally {
        process.off('SIGINT', onSig);
      }
      io.stdout.write(`signed in; the sign-in is kept in the OS keychain for ${account} and renewed as needed\n`);
      return 0;
    }
    let token: string;
    if (canReadSilently(io.stdin)) {
      io.stderr.write('Access token (not shown): ');
      token = (await readSecretLine(io.stdin, io.stderr)).trim();
    } else {
      token = (await readAll(io.stdin)).trim();
    }
    if (token === '' || /\s/.test(token)) throw new AppError('BadConfig', 'no token on stdin (or it holds white space)');
    await kc.set(account, token);
    io.stdout.write(`token stored in the OS keychain for ${account}\n`);
    return 0;
  } finally {
    transport.close();
  }
};
