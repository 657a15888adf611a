/**
 * `mlb daemon` as a user runs it, on loopback: two hosts form a cluster, a SIGTERM is a graceful leave, a bad
 * edit of the configuration keeps the last good one, a restarted host finds the cluster again through its
 * state directory, and bad start-up input fails with a clear message.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runMlb } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-daemon-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Gossip ports from the kernel (bind to port 0), so test files running at once never collide. */
const freshPort = freeLoopbackPort;

/**
 * On loopback in the test machine's own namespace: announcing stays off (--no-announce), so nothing is sent on
 * the host's real interfaces and no VIP is bound; the namespace tests in test/e2e cover announcing.
 */
function daemon(name: string, port: number, extra: string[] = [], config = 'examples/plain-host.yaml'): RunningDaemon {
  const d = startDaemon([
    '--config',
    config,
    '--node-name',
    name,
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--state-dir',
    join(dir, name),
    '--control-socket',
    join(dir, `${name}.sock`),
    '--no-announce',
    ...extra,
  ]);
  running.push(d);
  return d;
}

const event =
  (name: string, fields: Record<string, unknown> = {}) =>
  (l: Record<string, unknown>) =>
    l.event === name && Object.entries(fields).every(([k, v]) => l[k] === v);

describe('mlb daemon', () => {
  it('forms a cluster, and a SIGTERM is seen by the others as a graceful leave', async () => {
    const pa = await freshPort();
    const a = daemon('node-a', pa);
    await a.waitFor(event('gossipStarted'));
    expect(a.lines.find(event('gossipUnencrypted'))?.level).toBe('warn');
    const b = daemon('node-b', await freshPort(), ['--join', `127.0.0.1:${pa}`]);
    await a.waitFor(event('memberJoined', { member: 'node-b' }));
    await b.waitFor(event('gossipJoin', { joined: 1 }));
    b.child.kill('SIGTERM');
    expect(await b.exited()).toBe(0);
    expect(b.lines.find(event('gossipLeft'))?.outcome).toBe('broadcast');
    await a.waitFor(event('memberLeft', { member: 'node-b' }));
    expect(a.lines.some(event('memberFailed'))).toBe(false);
  });

  it('declares a killed host dead', async () => {
    const pa = await freshPort();
    const a = daemon('node-a', pa);
    await a.waitFor(event('gossipStarted'));
    const b = daemon('node-b', await freshPort(), ['--join', `127.0.0.1:${pa}`]);
    await a.waitFor(event('memberJoined', { member: 'node-b' }));
    b.child.kill('SIGKILL');
    await a.waitFor(event('memberFailed', { member: 'node-b' }));
  });

  it('finds the cluster again after a restart without --join, through its state directory', async () => {
    const pa = await freshPort();
    const pb = await freshPort();
    const a = daemon('node-a', pa);
    await a.waitFor(event('gossipStarted'));
    const b = daemon('node-b', pb, ['--join', `127.0.0.1:${pa}`]);
    await a.waitFor(event('memberJoined', { member: 'node-b' }));
    await b.waitFor(event('memberJoined', { member: 'node-a' }));
    b.child.kill('SIGTERM');
    await b.exited();
    expect(JSON.parse(readFileSync(join(dir, 'node-b', 'known-peers.json'), 'utf8')).peers).toEqual([
      { name: 'node-a', host: '127.0.0.1', port: pa },
    ]);
    const again = daemon('node-b', pb);
    await again.waitFor(event('gossipJoin', { joined: 1 }));
    await a.waitFor(
      (l) => l.event === 'memberJoined' && l.member === 'node-b' && a.lines.indexOf(l) > a.lines.findIndex(event('memberLeft')),
    );
  });

  it('keeps the last good configuration when an edit is invalid, and says so', async () => {
    const config = join(dir, 'live.yaml');
    copyFileSync('examples/plain-host.yaml', config);
    const a = daemon('node-a', await freshPort(), [], config);
    await a.waitFor(event('gossipStarted'));
    writeFileSync(config, readFileSync(config, 'utf8').replace('192.168.10.200-192.168.10.220', '192.168.10.220-192.168.10.200'));
    const stale = await a.waitFor(event('configStale'));
    expect(stale.level).toBe('error');
    expect(JSON.stringify(stale.errors)).toContain('live.yaml:');
    expect(JSON.stringify(stale.errors)).toContain('is after the end IP');
    writeFileSync(config, readFileSync('examples/plain-host.yaml', 'utf8'));
    await a.waitFor((l) => l.event === 'configLoaded' && l.msg === 'configuration reloaded');
    expect(a.child.exitCode).toBeNull();
  });

  it('refuses to start on an invalid configuration, with positions (exit 1)', async () => {
    const run = runMlb([
      'daemon',
      '--config',
      'test/fixtures/invalid/reversed-range.yaml',
      '--gossip-bind',
      `127.0.0.1:${await freshPort()}`,
      '--state-dir',
      join(dir, 'x'),
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/test\/fixtures\/invalid\/reversed-range\.yaml:9:7: error: invalid CIDR/);
  });

  it('refuses an unreadable key file (exit 1) and a bad --gossip-bind (exit 2)', async () => {
    const key = runMlb([
      'daemon',
      '--config',
      'examples/plain-host.yaml',
      '--gossip-bind',
      `127.0.0.1:${await freshPort()}`,
      '--gossip-key-file',
      join(dir, 'none'),
      '--state-dir',
      join(dir, 'y'),
    ]);
    expect(key.status).toBe(1);
    expect(key.stderr).toContain('cannot read --gossip-key-file');
    const bind = runMlb(['daemon', '--config', 'examples/plain-host.yaml', '--gossip-bind', 'somewhere:7946']);
    expect(bind.status).toBe(2);
    expect(bind.stderr).toContain('--gossip-bind');
    const wildcard = runMlb(['daemon', '--config', 'examples/plain-host.yaml', '--gossip-bind', '0.0.0.0:7946']);
    expect(wildcard.status).toBe(2);
    expect(wildcard.stderr).toContain('--gossip-advertise');
  });

  it('refuses a --control-socket-group the host does not have (exit 1), before making the socket', async () => {
    const sock = join(dir, 'grouped.sock');
    const run = runMlb([
      'daemon',
      '--config',
      'examples/plain-host.yaml',
      '--gossip-bind',
      `127.0.0.1:${await freshPort()}`,
      '--state-dir',
      join(dir, 'g'),
      '--control-socket',
      sock,
      '--control-socket-group',
      'no-such-group-mlb',
      '--no-announce',
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'the control socket group "no-such-group-mlb" does not exist on this host: create it (sudo groupadd --system no-such-group-mlb)',
    );
    expect(existsSync(sock)).toBe(false);
  });

  it("encrypts with MetalLB's secretkey, and a host with another key never joins", async () => {
    writeFileSync(join(dir, 'key-1'), 'c2VjcmV0c2VjcmV0c2VjcmV0');
    writeFileSync(join(dir, 'key-2'), 'b3RoZXJvdGhlcm90aGVyb3Ro');
    const pa = await freshPort();
    const a = daemon('node-a', pa, ['--gossip-key-file', join(dir, 'key-1')]);
    await a.waitFor(event('gossipStarted', { encrypted: true }));
    daemon('node-b', await freshPort(), ['--gossip-key-file', join(dir, 'key-1'), '--join', `127.0.0.1:${pa}`]);
    await a.waitFor(event('memberJoined', { member: 'node-b' }));
    const c = daemon('node-c', await freshPort(), ['--gossip-key-file', join(dir, 'key-2'), '--join', `127.0.0.1:${pa}`]);
    const refused = await c.waitFor(event('gossipJoin'));
    expect(refused.joined).toBe(0);
    expect(a.lines.some(event('memberJoined', { member: 'node-c' }))).toBe(false);
    expect(a.lines.some(event('memberFailed'))).toBe(false);
  });
});
