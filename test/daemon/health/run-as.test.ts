/**
 * --health-check-user: exec: checks run with another user's uid and gid (and no supplementary groups), the user
 * is looked up at start, and a daemon that may not switch users refuses to start saying which capabilities it
 * lacks.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { probeExec } from '../../../src/daemon/health/health-probers';
import { parsePasswdEntry, resolveRunAs, type RunAs } from '../../../src/daemon/health/run-as';
import { MLB_BUNDLE, REPO_ROOT } from '../../cli/run-cli';
import { startDaemon, type RunningDaemon } from '../run-daemon';
import { freeLoopbackPort } from '../../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-run-as-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const isRoot = process.getuid?.() === 0;
/** The unprivileged account every Debian system has. */
const USER = 'nobody';
const expected = (): RunAs => ({
  user: USER,
  uid: Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim()),
  gid: Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' }).trim()),
});
/** A check that passes only when run with exactly that uid, gid and no other group. */
const onlyAs = (who: RunAs) => ['/bin/sh', '-c', `test "$(id -u)" = ${who.uid} && test "$(id -G)" = ${who.gid}`];

describe('parsePasswdEntry', () => {
  it('takes the name, uid and primary gid', () => {
    expect(parsePasswdEntry('mlb-check:x:998:997:mlb health checks:/nonexistent:/usr/sbin/nologin\n')).toEqual({
      user: 'mlb-check',
      uid: 998,
      gid: 997,
    });
  });

  it('refuses what is not a usable passwd line', () => {
    expect(parsePasswdEntry('')).toBeUndefined();
    expect(parsePasswdEntry('a:x:12')).toBeUndefined();
    expect(parsePasswdEntry('a:x:twelve:1:::')).toBeUndefined();
    expect(parsePasswdEntry('a:x:4294967295:1:::')).toBeUndefined();
    expect(parsePasswdEntry(':x:1:1:::')).toBeUndefined();
  });
});

describe('resolveRunAs', () => {
  it('finds a user through getent', async () => {
    expect(await resolveRunAs(USER)).toEqual(expected());
  });

  it('names the flag and the user that does not exist', async () => {
    await expect(resolveRunAs('mlb-no-such-user')).rejects.toMatchObject({
      code: 'healthCheckUserUnknown',
      message: '--health-check-user mlb-no-such-user: no such user (getent passwd mlb-no-such-user found none)',
    });
  });
});

describe.skipIf(!isRoot)(`exec: checks as another user${isRoot ? '' : ' (skipped: switching users needs root)'}`, () => {
  it('runs the program with that uid and gid and no other group', async () => {
    const who = expected();
    expect(await probeExec(onlyAs(who), 5_000, undefined, who)).toEqual({ ok: true, detail: 'exit 0' });
    // Without it, the program runs as the daemon's user (root here).
    expect((await probeExec(onlyAs(who), 5_000)).ok).toBe(false);
  });

  it('the daemon runs exec: checks as --health-check-user', async () => {
    const who = expected();
    const config = join(dir, 'mlb.yaml');
    const check = `exec:${onlyAs(who).slice(0, 2).join(' ')} '${onlyAs(who)[2]}'`;
    writeFileSync(
      config,
      readFileSync(join(REPO_ROOT, 'examples/plain-host.yaml'), 'utf8').replace(
        'mlb.io/health-check: http://127.0.0.1:8080/healthz',
        `mlb.io/health-check: ${JSON.stringify(check)}`,
      ),
    );
    const d = startDaemon([
      '--config',
      config,
      '--node-name',
      'node-a',
      '--gossip-bind',
      `127.0.0.1:${await freeLoopbackPort()}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      join(dir, 'mlb.sock'),
      '--no-announce',
      '--health-check-user',
      USER,
    ]);
    running.push(d);
    const user = await d.waitFor((l) => l.event === 'healthCheckUser');
    expect(user.msg).toBe(`exec: health checks run as ${USER} (uid ${who.uid}, gid ${who.gid})`);
    await d.waitFor((l) => l.event === 'healthCheckPassing');
  });

  const setpriv = (() => {
    try {
      execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!setpriv)('refuses to start without CAP_SETUID and CAP_SETGID, saying so', async () => {
    const port = await freeLoopbackPort();
    // What the systemd unit's bounding set does, without systemd.
    const run = (() => {
      try {
        return {
          status: 0,
          stderr: execFileSync(
            'setpriv',
            [
              '--bounding-set=-setuid,-setgid',
              '--inh-caps=-all',
              process.execPath,
              MLB_BUNDLE,
              'daemon',
              '--config',
              'examples/plain-host.yaml',
              '--gossip-bind',
              `127.0.0.1:${port}`,
              '--state-dir',
              join(dir, 'capless'),
              '--control-socket',
              join(dir, 'capless.sock'),
              '--no-announce',
              '--health-check-user',
              USER,
            ],
            { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], timeout: 15_000 },
          ),
        };
      } catch (error) {
        return error as { status: number; stderr: string };
      }
    })();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`--health-check-user ${USER}: cannot run a program as uid`);
    expect(run.stderr).toContain('needs CAP_SETUID and CAP_SETGID');
  });
});
