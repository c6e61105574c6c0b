/**
 * Both command lines parse their words by one definition per command (issue 25, point 15):
 * an unknown option is named, with the command's usage line, exit 2; a subcommand answers
 * --help with its own usage; every option --help lists is one the parser takes. Spawned as
 * a user runs them.
 */
import { describe, expect, it } from 'vitest';
import { runBin, runCli } from '../support/run-cli.js';

const run = runBin;

describe('usage errors name what is wrong and print the usage line', () => {
  it('nas-mirror', async () => {
    expect(await run('nas-mirror.js', 'status', '--frobnicate')).toEqual({
      code: 2,
      out: '',
      err: 'nas-mirror status: unknown option --frobnicate\nusage: nas-mirror status [--state DIR] [--json]\n',
    });
    // a subcommand's usage line, and an option its form does not take, said as the user typed it
    expect(await run('nas-mirror.js', 'held', 'approve', '3', '--json')).toEqual({
      code: 2,
      out: '',
      err: 'nas-mirror held approve: unknown option --json\nusage: nas-mirror held approve ID... [--state DIR]\n',
    });
    const noValue = await run('nas-mirror.js', 'search', 'x', '--limit');
    expect(noValue.code).toBe(2);
    expect(noValue.err).toBe(
      'nas-mirror search: --limit needs a value (N)\nusage: nas-mirror search QUERY [--state DIR] [--limit N] [--page-token T] [--json]\n',
    );
    const flagValue = await run('nas-mirror.js', 'status', '--json=yes');
    expect(flagValue.err).toMatch(/^nas-mirror status: --json takes no value\n/);
    const tooMany = await run('nas-mirror.js', 'search', 'a', 'b');
    expect(tooMany.code).toBe(2);
    expect(tooMany.err).toMatch(/^nas-mirror search: too many arguments: "b"/);
    const missing = await run('nas-mirror.js', 'run', '--dir', 'x');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(
      /^nas-mirror run: --device is required \(FILE\|URL\)\nusage: nas-mirror run --device FILE\|URL \[--state DIR\] --dir MIRROR /,
    );
  }, 60_000);

  it('nas-service', async () => {
    const r = await run('nas-service.js', 'serve', '--data', '/tmp/x', '--frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'nas-service: serve: unknown option --frobnicate\nusage:\n  nas-service serve --data DIR [--host 127.0.0.1] [--port N] [--token-ttl SECONDS] [--quirks real-device|NAME,...] [--log-json]\n',
    );
    const sub = await run('nas-service.js', 'user', 'password', 'bob', '--data', '/tmp/x');
    expect(sub.code).toBe(2);
    expect(sub.err).toMatch(
      /^nas-service: user password: --password-stdin is required: .*\nusage:\n {2}nas-service user password NAME --data DIR --password-stdin\n$/,
    );
  }, 60_000);
});

describe('subcommands answer --help with their own usage', () => {
  it('nas-mirror held approve, conflicts drop; nas-service token revoke, user add', async () => {
    const approve = await run('nas-mirror.js', 'held', 'approve', '--help');
    expect({ code: approve.code, err: approve.err }).toEqual({ code: 0, err: '' });
    expect(approve.out).toMatch(/^usage: nas-mirror held approve ID\.\.\. \[--state DIR\]\n\ndelete them on the NAS after all\n/);
    expect((await run('nas-mirror.js', 'conflicts', '--state', '/x', 'drop', '-h')).out).toMatch(
      /^usage: nas-mirror conflicts drop ID\.\.\. \[--state DIR\]\n/,
    );
    // the command's --help lists its subcommands
    expect((await run('nas-mirror.js', 'held', '--help')).out).toContain('\nsubcommands:\n  approve  ');
    expect((await run('nas-service.js', 'token', 'revoke', '--help')).out).toMatch(
      /^usage:\n {2}nas-service token revoke --data DIR --token-stdin\n\n/,
    );
    expect((await run('nas-service.js', 'user', 'add', '-h')).out).toMatch(
      /^usage:\n {2}nas-service user add NAME --data DIR \[--password-stdin\]\n\n/,
    );
  }, 60_000);
});

describe('--help says what the parser takes', () => {
  it('every option a nas-mirror command lists is accepted by that command', async () => {
    const commands = [...(await runCli(['--help'])).out.matchAll(/^ {2}nas-mirror (\S+)/gm)].map((m) => m[1]!);
    expect(commands).toContain('search');
    for (const cmd of commands) {
      const help = (await runCli([cmd, '--help'])).out;
      for (const [, opt, value] of help.matchAll(/^ {2}(--[\w-]+)( [^ ]+)?  /gm)) {
        if (opt === '--help') continue;
        // the listed option is taken: the error is about the unknown one after it
        const r = await runCli([cmd, value === undefined ? opt! : `${opt}=x`, '--zz-unknown']);
        expect({ cmd, opt, code: r.code, err: r.err.split('\n')[0] }).toEqual({
          cmd,
          opt,
          code: 2,
          err: `nas-mirror ${cmd}: unknown option --zz-unknown`,
        });
      }
    }
  }, 60_000);
});
