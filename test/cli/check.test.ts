/**
 * `mlb check` as a monitoring system runs it: one status line on stdout and the plugin exit codes, against a fake
 * daemon whose snapshot each test chooses (0 OK, 1 WARNING, 2 CRITICAL), no daemon at all (3 UNKNOWN), and a
 * wrong command line (3 UNKNOWN as well, never 2, which would read as CRITICAL).
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ControlServer } from '../../src/daemon/control';
import { exampleSnapshot, runMlbAsync, socketDir, startFakeDaemon, type FakeProvider } from '../daemon/control/fake-daemon';

const sockets = socketDir();
const path = join(sockets.dir, 'mlb.sock');
let server: ControlServer;
let provider: FakeProvider;
beforeAll(async () => {
  ({ server, provider } = await startFakeDaemon(path));
});
afterEach(() => {
  provider.current = null;
});
afterAll(async () => {
  await server.close();
  sockets.remove();
});

/** The example cluster with its problems fixed: every member alive and plain mlb, one file, no conflict. */
function healthySnapshot() {
  const s = exampleSnapshot();
  s.config = { ...s.config, state: 'ok', errors: [] };
  s.members = s.members.filter((m) => m.mlb && m.state === 'alive').map((m) => ({ ...m, warmingUp: false }));
  s.services = s.services
    .filter((svc) => svc.allocation.status === 'ok')
    .map((svc) => ({ ...svc, health: { ...svc.health, failing: [] } }));
  s.conflicts = [];
  return s;
}

describe('mlb check', () => {
  it('exits 0 with "MLB OK - ..." and perfdata when every IP is announced and every member alive', async () => {
    provider.current = healthySnapshot();
    const run = await runMlbAsync(['check', '--socket', path]);
    expect(run).toEqual({
      status: 0,
      stdout: 'MLB OK - 3 service IPs announced, 2/2 members alive | ips=3 unannounced=0 members_alive=2 members=2 conflicts=0\n',
      stderr: '',
    });
  });

  it('exits 1 WARNING when a member is dead but every IP is still announced', async () => {
    const s = healthySnapshot();
    s.members.push({ name: 'node-d', addr: '10.0.0.14:7946', state: 'dead', mlb: true, labels: {}, draining: false, warmingUp: false });
    provider.current = s;
    const run = await runMlbAsync(['check', '--socket', path]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('MLB WARNING - member node-d is dead | ips=3 unannounced=0 members_alive=2 members=3 conflicts=0\n');
  });

  it('exits 2 CRITICAL naming the IP nobody announces first, then the other reasons', async () => {
    const s = exampleSnapshot();
    s.services[0] = { ...s.services[0]!, owner: null, announcing: [] };
    provider.current = s;
    const run = await runMlbAsync(['check', '--socket', path, '--verbose']);
    expect(run.status).toBe(2);
    const [line, ...rest] = run.stdout.trimEnd().split('\n');
    expect(line).toMatch(
      /^MLB CRITICAL - 192\.168\.10\.200 \(demo\/web\) announced by nobody; demo\/nobody has no IP: poolExhausted \(no available IPs in pool "small"\); 192\.168\.10\.200 also answered by 02:42:ac:11:00:99 \(not a member\), seen by node-a; and \d+ more \(--verbose lists them\) \| ips=3 unannounced=1 /,
    );
    expect(rest).toContain('WARNING: member metallb-speaker-xyz is suspect');
    expect(rest).toContain('WARNING: node-b is warming up');
  });

  it('exits 3 UNKNOWN, saying why on stdout, when no daemon listens on the socket', async () => {
    const run = await runMlbAsync(['check', '--socket', join(sockets.dir, 'absent.sock')]);
    expect(run.status).toBe(3);
    expect(run.stdout).toMatch(/^MLB UNKNOWN - no control socket at \S+absent\.sock: is mlb daemon running\?.*\n$/);
  });

  it('exits 3 UNKNOWN, not 2 (CRITICAL), on a wrong command line', async () => {
    const run = await runMlbAsync(['check', '--socket', path, '--bogus']);
    expect(run.status).toBe(3);
    expect(run.stdout).toBe('MLB UNKNOWN - mlb check: Unknown argument: bogus\n');
    expect(run.stderr).toContain('mlb check --help');
  });

  it('documents the plugin exit codes in its --help', async () => {
    const run = await runMlbAsync(['check', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain("Exit codes follow the monitoring-plugin convention, not mlb's: 0 OK; 1 WARNING");
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(
      '3 UNKNOWN (no daemon on the socket, no permission, another mlb version, or a wrong command line)',
    );
  });
});
