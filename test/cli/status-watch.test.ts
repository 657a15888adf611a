/**
 * `mlb status --watch` (a line per daemon event, for scripts, until interrupted) and `mlb status -o yaml|wide`,
 * against the real control server with a fake daemon behind it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ControlServer } from '../../src/daemon/control';
import { exampleSnapshot, type FakeProvider, runMlbAsync, socketDir, startFakeDaemon } from '../daemon/control/fake-daemon';
import { MLB_BUNDLE, REPO_ROOT } from './run-cli';

const sockets = socketDir();
const path = join(sockets.dir, 'mlb.sock');
let server: ControlServer;
let provider: FakeProvider;
beforeAll(async () => {
  ({ server, provider } = await startFakeDaemon(path));
});
afterAll(async () => {
  await server.close();
  sockets.remove();
});

/** A running `mlb status --watch`: its output so far, and its end. */
function startWatch(args: string[]) {
  const child = spawn(process.execPath, [MLB_BUNDLE, 'status', '--socket', path, '--watch', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out.stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (out.stderr += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, out, exited };
}

const WAIT = { timeout: 20_000, interval: 20 };

describe('mlb status --watch', () => {
  it('prints one line per new event (not the ones before it started), and exits 0 on SIGINT', async () => {
    const old = provider.events.record({ type: 'memberJoined', member: 'node-old' });
    // The daemon's clock says the watch starts after the old event.
    provider.current = { ...exampleSnapshot(), generatedAt: new Date(Date.parse(old.at) + 1).toISOString() };
    const subscribed = provider.subscriptions;
    const watch = startWatch([]);
    await vi.waitFor(() => expect(provider.subscriptions).toBe(subscribed + 1), WAIT);
    const failed = provider.events.record({ type: 'memberFailed', member: 'node-b' });
    const moved = provider.events.record({
      type: 'ownerChanged',
      service: 'demo/web',
      ips: ['192.168.10.200'],
      from: ['node-b'],
      to: ['node-a'],
      unheldMs: 850,
    } as never);
    await vi.waitFor(() => expect(watch.out.stdout.split('\n').length).toBe(3), WAIT);
    watch.child.kill('SIGINT');
    expect(await watch.exited).toEqual({ code: 0, signal: null });
    expect(watch.out.stderr).toBe('');
    expect(watch.out.stdout.split('\n')).toEqual([
      `${failed.at} memberFailed node-b failed (stopped answering gossip)`,
      `${moved.at} ownerChanged demo/web 192.168.10.200: node-b -> node-a (unheld 850 ms)`,
      '',
    ]);
  });

  it('-o json prints each event as one JSON object per line', async () => {
    provider.current = { ...exampleSnapshot(), generatedAt: new Date().toISOString() };
    const subscribed = provider.subscriptions;
    const watch = startWatch(['-o', 'json']);
    await vi.waitFor(() => expect(provider.subscriptions).toBe(subscribed + 1), WAIT);
    const event = provider.events.record({ type: 'drainChanged', draining: true } as never);
    await vi.waitFor(() => expect(watch.out.stdout).toContain('\n'), WAIT);
    watch.child.kill('SIGINT');
    expect((await watch.exited).code).toBe(0);
    expect(
      watch.out.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([event]);
  });

  it('a daemon that cannot be reached fails at once with the reason (exit 1)', async () => {
    const run = await runMlbAsync(['status', '--watch', '--socket', join(sockets.dir, 'nobody.sock')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^mlb: .*nobody\.sock/);
  });
});

describe('mlb status -o', () => {
  it('-o yaml is the snapshot --json prints, as YAML', async () => {
    provider.current = null;
    const [yaml, json] = await Promise.all([
      runMlbAsync(['status', '--socket', path, '-o', 'yaml']),
      runMlbAsync(['status', '--socket', path, '--json']),
    ]);
    expect(yaml.status).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('-o wide prints the tables with every cell whole, where --once cuts them to 80 columns', async () => {
    provider.current = null;
    const [wide, once] = await Promise.all([
      runMlbAsync(['status', '--socket', path, '-o', 'wide']),
      runMlbAsync(['status', '--socket', path, '--once']),
    ]);
    expect(wide.status).toBe(0);
    const longName = 'a-namespace-with-a-long-name/a-service-with-an-even-longer-name';
    expect(wide.stdout).toMatch(new RegExp(`^${longName} +fd00:10::1234:5678:9abc:def0 +bgp +node-a,node-b `, 'm'));
    expect(wide.stdout).toContain('topology.kubernetes.io/zone=rack-2-with-a-long-name');
    expect(once.stdout).not.toContain(longName);
  });
});
