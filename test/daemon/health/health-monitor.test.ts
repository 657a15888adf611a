// HealthMonitor with 100 ms intervals (on a hand-moved clock, test/support/manual-scheduler.ts, except the real
// HTTP service and the child process, which run on real timers): a real HTTP service turning sick fails after exactly `fall` failed probes
// and comes back after exactly `rise` good ones; update() is idempotent, probes of one service never overlap,
// removing a service stops its probes, and the monitor never keeps the process alive on its own.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHealthCheck, type HealthCheckSpec } from '../../../src/daemon/health/health-check-spec';
import { AWAITING_FIRST_PROBE, HealthMonitor, type HealthResult, type Prober } from '../../../src/daemon/health/health-monitor';
import type { HealthChange } from '../../../src/daemon/health/health-state';
import { ManualScheduler } from '../../support/manual-scheduler';
import { until } from '../../support/until';

const monitors: HealthMonitor[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(monitors.splice(0).map((m) => m.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

function monitor(options: ConstructorParameters<typeof HealthMonitor>[0] = {}): HealthMonitor {
  const m = new HealthMonitor(options);
  monitors.push(m);
  return m;
}

function spec(target: string, options: Record<string, string> = {}): HealthCheckSpec {
  const parsed = parseHealthCheck({
    'mlb.io/health-check': target,
    'mlb.io/health-check-interval': '100ms',
    'mlb.io/health-check-timeout': '100ms',
    ...options,
  });
  if (!parsed.ok || !parsed.spec) throw new Error(JSON.stringify(parsed));
  return parsed.spec;
}

interface Recorded {
  key: string;
  result: HealthResult;
  change: HealthChange;
  requests: number;
}

describe('HealthMonitor', () => {
  it('a real HTTP service: failing after exactly `fall` bad answers, passing after exactly `rise` good ones', async () => {
    let status = 200;
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.writeHead(status).end();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const m = monitor();
    const changes: Recorded[] = [];
    m.on('change', (key, result, change) => changes.push({ key, result, change, requests }));

    m.update([
      {
        key: 'demo/web',
        spec: spec(`http://127.0.0.1:${port}/healthz`, { 'mlb.io/health-check-rise': '2', 'mlb.io/health-check-fall': '3' }),
      },
    ]);
    expect(m.results().get('demo/web')).toMatchObject({ state: 'failing', detail: AWAITING_FIRST_PROBE });
    await until('the first probe', () => changes.length === 1);
    expect(changes[0]).toMatchObject({
      key: 'demo/web',
      result: { state: 'passing', detail: 'HTTP 200' },
      change: { cause: 'firstProbe' },
      requests: 1,
    });

    status = 503;
    const sickFrom = requests;
    await until('the service to fail', () => changes.length === 2);
    expect(changes[1]?.requests).toBe(sickFrom + 3); // fall 3: three 503s, no fewer
    expect(changes[1]?.change).toEqual({
      from: 'passing',
      to: 'failing',
      cause: 'fall',
      reason: '3 consecutive probes failed (fall 3): HTTP 503',
    });
    expect(m.results().get('demo/web')).toMatchObject({ state: 'failing', detail: 'HTTP 503' });

    status = 200;
    const wellFrom = requests;
    await until('the service to pass again', () => changes.length === 3);
    expect(changes[2]?.requests).toBe(wellFrom + 2); // rise 2
    expect(changes[2]?.change.cause).toBe('rise');
    expect(m.results().get('demo/web')?.state).toBe('passing');
  });

  it('probes once per interval, or back to back when a probe takes longer; never two probes of one service at once', async () => {
    const clock = new ManualScheduler();
    let running = 0;
    let most = 0;
    let calls = 0;
    const slow: Prober = async (_spec, signal) => {
      calls++;
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => {
        clock.after(250, r); // longer than the 100 ms interval
        signal.addEventListener('abort', () => r()); // close() at the end of the test
      });
      running--;
      return { ok: true, detail: 'slow' };
    };
    const m = monitor({ probe: slow, runtime: clock });
    m.update([{ key: 'a/slow', spec: spec('tcp://127.0.0.1:1') }]);
    await clock.advance(999);
    expect(most).toBe(1);
    expect(calls).toBe(4); // at 0, 250, 500 and 750 ms: back to back, not every 100 ms

    let quick = 0;
    const n = monitor({
      probe: async () => {
        quick++;
        return { ok: true, detail: 'quick' };
      },
      runtime: clock,
    });
    n.update([{ key: 'a/quick', spec: spec('tcp://127.0.0.1:1') }]);
    await clock.advance(999);
    expect(quick).toBe(10); // at 0, 100, ..., 900 ms
  });

  it('update() with the same specs leaves loops untouched: no extra probes, no events', async () => {
    const clock = new ManualScheduler();
    let calls = 0;
    const m = monitor({
      probe: async () => {
        calls++;
        return { ok: true, detail: 'ok' };
      },
      runtime: clock,
    });
    const services = [
      { key: 'a/x', spec: spec('tcp://127.0.0.1:1', { 'mlb.io/health-check-interval': '300ms' }) },
      { key: 'a/none', spec: undefined },
    ];
    m.update(services);
    await clock.advance(0);
    expect(calls).toBe(1);
    const before = m.results().get('a/x');
    let events = 0;
    m.on('change', () => events++);
    await clock.advance(150);
    for (let i = 0; i < 50; i++) m.update(services.map((s) => ({ ...s }))); // equal, not identical
    await clock.advance(149);
    expect(calls).toBe(1); // the next probe is still 300 ms after the first: the updates did not re-arm it
    expect(events).toBe(0);
    expect(m.results().get('a/x')).toEqual(before);
    expect([...m.results().keys()]).toEqual(['a/x']); // a service without a check has no result
    await clock.advance(1);
    expect(calls).toBe(2);
  });

  it('a changed interval keeps the verdict; a changed target keeps it published until its own first probe', async () => {
    const clock = new ManualScheduler();
    const outcomes = new Map<string, boolean>([
      ['tcp://127.0.0.1:1', true],
      ['tcp://127.0.0.1:2', false],
    ]);
    const probedAt: number[] = [];
    const m = monitor({
      runtime: clock,
      probe: async (s) => {
        probedAt.push(clock.now());
        return { ok: outcomes.get(s.target) ?? false, detail: s.target };
      },
    });
    const changes: HealthChange[] = [];
    m.on('change', (_k, _r, c) => changes.push(c));
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1') }]);
    await clock.advance(0);
    expect(changes).toHaveLength(1);
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1', { 'mlb.io/health-check-interval': '150ms' }) }]);
    await clock.advance(400);
    expect(changes).toHaveLength(1);
    expect(probedAt).toEqual([0, 150, 300]); // the pending wait followed the new interval
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:2', { 'mlb.io/health-check-fall': '5' }) }]);
    expect(m.results().get('a/x')?.state).toBe('passing');
    await clock.advance(0);
    expect(changes).toHaveLength(2);
    // The first probe of the new target decides at once, not after fall 5.
    expect(changes[1]).toMatchObject({
      from: 'unknown',
      to: 'failing',
      cause: 'firstProbe',
      reason: 'first probe failed: tcp://127.0.0.1:2',
    });
  });

  it('removing a service stops its probes and drops its result; close() stops everything', async () => {
    const clock = new ManualScheduler();
    const calls = new Map<string, number>();
    const m = monitor({
      runtime: clock,
      probe: async (s) => {
        calls.set(s.target, (calls.get(s.target) ?? 0) + 1);
        return { ok: true, detail: '' };
      },
    });
    m.update([
      { key: 'a/x', spec: spec('tcp://127.0.0.1:1') },
      { key: 'a/y', spec: spec('tcp://127.0.0.1:2') },
    ]);
    await clock.advance(100);
    expect(calls.get('tcp://127.0.0.1:1')).toBe(2);
    m.update([{ key: 'a/y', spec: spec('tcp://127.0.0.1:2') }]);
    expect([...m.results().keys()]).toEqual(['a/y']);
    await clock.advance(300);
    expect(calls.get('tcp://127.0.0.1:1')).toBe(2);
    expect(calls.get('tcp://127.0.0.1:2')).toBe(5);
    await m.close();
    await clock.advance(300);
    expect(calls.get('tcp://127.0.0.1:2')).toBe(5);
    expect(clock.pending).toBe(0); // no timer left behind
  });

  it('close() aborts a probe under way', async () => {
    const clock = new ManualScheduler();
    let started = false;
    let aborted = false;
    const m = monitor({
      runtime: clock,
      probe: (_s, signal) =>
        new Promise((resolve) => {
          started = true;
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ ok: false, detail: 'aborted' });
          });
        }),
    });
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1') }]);
    await clock.advance(0);
    expect(started).toBe(true);
    await m.close();
    expect(aborted).toBe(true);
  });

  it('stamps `since` with the injected clock; a check that never passed is logged once at warn, not on every probe', async () => {
    const clock = new ManualScheduler();
    const lines: { level: string; fields: Record<string, unknown>; msg: string | undefined }[] = [];
    const record = (level: string) => (fields: object, msg?: string) =>
      lines.push({ level, fields: fields as Record<string, unknown>, msg });
    let probes = 0;
    const m = monitor({
      runtime: clock,
      now: () => 42_000,
      node: 'node-1',
      probe: async () => {
        probes++;
        return { ok: false, detail: 'HTTP 503' };
      },
      logger: { warn: record('warn'), info: record('info'), debug: () => {}, error: record('error') },
    });
    m.update([{ key: 'a/x', spec: spec('http://127.0.0.1:1/healthz') }]);
    await clock.advance(300);
    expect(probes).toBe(4);
    expect(m.results().get('a/x')).toEqual({ state: 'failing', since: 42_000, detail: 'HTTP 503' });
    const said = lines.filter((l) => l.fields.event === 'healthCheckFailing');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({
      level: 'warn',
      fields: { service: 'a/x', check: 'http://127.0.0.1:1/healthz', result: 'HTTP 503', cause: 'firstProbe' },
    });
    expect(said[0]!.msg).toContain('health check a/x on node-1 is failing');
    expect(said[0]!.msg).toContain('HTTP 503');
  });

  it('logs a failure after passing at warn and the recovery at info, each with the last result', async () => {
    const clock = new ManualScheduler();
    const lines: { level: string; fields: Record<string, unknown> }[] = [];
    const record = (level: string) => (fields: object) => lines.push({ level, fields: fields as Record<string, unknown> });
    let answer = { ok: true, detail: 'HTTP 200' };
    const m = monitor({
      runtime: clock,
      node: 'node-2',
      probe: async () => answer,
      logger: { warn: record('warn'), info: record('info'), debug: () => {}, error: record('error') },
    });
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1', { 'mlb.io/health-check-rise': '1', 'mlb.io/health-check-fall': '1' }) }]);
    await clock.advance(0);
    expect(m.results().get('a/x')?.state).toBe('passing');
    answer = { ok: false, detail: 'connect ECONNREFUSED 127.0.0.1:1' };
    await clock.advance(100);
    expect(m.results().get('a/x')?.state).toBe('failing');
    await clock.advance(200); // two more failed probes: still one line
    answer = { ok: true, detail: 'HTTP 200' };
    await clock.advance(100);
    expect(m.results().get('a/x')?.state).toBe('passing');
    expect(lines.map((l) => [l.level, l.fields.event, l.fields.result])).toEqual([
      ['info', 'healthCheckPassing', 'HTTP 200'],
      ['warn', 'healthCheckFailing', 'connect ECONNREFUSED 127.0.0.1:1'],
      ['info', 'healthCheckPassing', 'HTTP 200'],
    ]);
  });

  it('does not keep the process alive on its own', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'monitor-left-running.ts')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('exit', (c) => {
        clearTimeout(killer);
        resolve(c);
      });
    });
    expect(output).toContain('probed');
    expect(code).toBe(0);
  }, 15_000);
});
