// HealthMonitor with 100 ms intervals: a real HTTP service turning sick fails after exactly `fall` failed probes
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
    'mlb.io/health-check': target, 'mlb.io/health-check-interval': '100ms', 'mlb.io/health-check-timeout': '100ms', ...options,
  });
  if (!parsed.ok || !parsed.spec) throw new Error(JSON.stringify(parsed));
  return parsed.spec;
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Recorded { key: string; result: HealthResult; change: HealthChange; requests: number }

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

    m.update([{ key: 'demo/web', spec: spec(`http://127.0.0.1:${port}/healthz`, { 'mlb.io/health-check-rise': '2', 'mlb.io/health-check-fall': '3' }) }]);
    expect(m.results().get('demo/web')).toMatchObject({ state: 'failing', detail: AWAITING_FIRST_PROBE });
    await until(() => changes.length === 1, 'the first probe');
    expect(changes[0]).toMatchObject({ key: 'demo/web', result: { state: 'passing', detail: 'HTTP 200' }, change: { cause: 'firstProbe' }, requests: 1 });

    status = 503;
    const sickFrom = requests;
    await until(() => changes.length === 2, 'the service to fail');
    expect(changes[1]?.requests).toBe(sickFrom + 3); // fall 3: three 503s, no fewer
    expect(changes[1]?.change).toEqual({ from: 'passing', to: 'failing', cause: 'fall', reason: '3 consecutive probes failed (fall 3): HTTP 503' });
    expect(m.results().get('demo/web')).toMatchObject({ state: 'failing', detail: 'HTTP 503' });

    status = 200;
    const wellFrom = requests;
    await until(() => changes.length === 3, 'the service to pass again');
    expect(changes[2]?.requests).toBe(wellFrom + 2); // rise 2
    expect(changes[2]?.change.cause).toBe('rise');
    expect(m.results().get('demo/web')?.state).toBe('passing');
  });

  it('probes about once per interval, and never two probes of one service at once', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const slow: Prober = async () => {
      calls++;
      running++;
      most = Math.max(most, running);
      await sleep(250); // longer than the 100 ms interval
      running--;
      return { ok: true, detail: 'slow' };
    };
    const m = monitor({ probe: slow });
    m.update([{ key: 'a/slow', spec: spec('tcp://127.0.0.1:1') }]);
    await sleep(1000);
    expect(most).toBe(1);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(5); // back to back at 250 ms each, not every 100 ms
  });

  it('update() with the same specs leaves loops untouched: no extra probes, no events', async () => {
    let calls = 0;
    const m = monitor({ probe: async () => { calls++; return { ok: true, detail: 'ok' }; } });
    const services = [{ key: 'a/x', spec: spec('tcp://127.0.0.1:1', { 'mlb.io/health-check-interval': '300ms' }) }, { key: 'a/none', spec: undefined }];
    m.update(services);
    await until(() => calls === 1, 'the first probe');
    const before = m.results().get('a/x');
    let events = 0;
    m.on('change', () => events++);
    for (let i = 0; i < 50; i++) m.update(services.map((s) => ({ ...s }))); // equal, not identical
    await sleep(150);
    expect(calls).toBe(1); // the next probe is still 300 ms after the first
    expect(events).toBe(0);
    expect(m.results().get('a/x')).toEqual(before);
    expect([...m.results().keys()]).toEqual(['a/x']); // a service without a check has no result
  });

  it('a changed interval keeps the verdict; a changed target keeps it published until its own first probe', async () => {
    const outcomes = new Map<string, boolean>([['tcp://127.0.0.1:1', true], ['tcp://127.0.0.1:2', false]]);
    const m = monitor({ probe: async (s) => ({ ok: outcomes.get(s.target) ?? false, detail: s.target }) });
    const changes: HealthChange[] = [];
    m.on('change', (_k, _r, c) => changes.push(c));
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1') }]);
    await until(() => changes.length === 1, 'passing');
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1', { 'mlb.io/health-check-interval': '150ms' }) }]);
    await sleep(400);
    expect(changes).toHaveLength(1);
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:2', { 'mlb.io/health-check-fall': '5' }) }]);
    expect(m.results().get('a/x')?.state).toBe('passing');
    await until(() => changes.length === 2, 'the new target decided');
    // The first probe of the new target decides at once, not after fall 5.
    expect(changes[1]).toMatchObject({ from: 'unknown', to: 'failing', cause: 'firstProbe', reason: 'first probe failed: tcp://127.0.0.1:2' });
  });

  it('removing a service stops its probes and drops its result; close() stops everything', async () => {
    const calls = new Map<string, number>();
    const m = monitor({ probe: async (s) => { calls.set(s.target, (calls.get(s.target) ?? 0) + 1); return { ok: true, detail: '' }; } });
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1') }, { key: 'a/y', spec: spec('tcp://127.0.0.1:2') }]);
    await until(() => (calls.get('tcp://127.0.0.1:1') ?? 0) >= 2, 'two probes');
    m.update([{ key: 'a/y', spec: spec('tcp://127.0.0.1:2') }]);
    expect([...m.results().keys()]).toEqual(['a/y']);
    await sleep(50);
    const stopped = calls.get('tcp://127.0.0.1:1');
    await sleep(300);
    expect(calls.get('tcp://127.0.0.1:1')).toBe(stopped);
    await m.close();
    const closed = calls.get('tcp://127.0.0.1:2');
    await sleep(300);
    expect(calls.get('tcp://127.0.0.1:2')).toBe(closed);
  });

  it('close() aborts a probe under way', async () => {
    let aborted = false;
    const m = monitor({ probe: (_s, signal) => new Promise((resolve) => signal.addEventListener('abort', () => {
      aborted = true;
      resolve({ ok: false, detail: 'aborted' });
    })) });
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1') }]);
    await sleep(50);
    await m.close();
    expect(aborted).toBe(true);
  });

  it('stamps `since` with the injected clock; a check that never passed is logged once at warn, not on every probe', async () => {
    const lines: { level: string; fields: Record<string, unknown>; msg: string | undefined }[] = [];
    const record = (level: string) => (fields: object, msg?: string) => lines.push({ level, fields: fields as Record<string, unknown>, msg });
    let probes = 0;
    const m = monitor({
      now: () => 42_000,
      node: 'node-1',
      probe: async () => {
        probes++;
        return { ok: false, detail: 'HTTP 503' };
      },
      logger: { warn: record('warn'), info: record('info'), debug: () => {} },
    });
    m.update([{ key: 'a/x', spec: spec('http://127.0.0.1:1/healthz') }]);
    await until(() => probes >= 4, 'four probes');
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
    const lines: { level: string; fields: Record<string, unknown> }[] = [];
    const record = (level: string) => (fields: object) => lines.push({ level, fields: fields as Record<string, unknown> });
    let answer = { ok: true, detail: 'HTTP 200' };
    let probes = 0;
    const m = monitor({
      node: 'node-2',
      probe: async () => {
        probes++;
        return answer;
      },
      logger: { warn: record('warn'), info: record('info'), debug: () => {} },
    });
    m.update([{ key: 'a/x', spec: spec('tcp://127.0.0.1:1', { 'mlb.io/health-check-rise': '1', 'mlb.io/health-check-fall': '1' }) }]);
    await until(() => m.results().get('a/x')?.state === 'passing', 'passing');
    answer = { ok: false, detail: 'connect ECONNREFUSED 127.0.0.1:1' };
    await until(() => m.results().get('a/x')?.state === 'failing', 'failing');
    const failedAt = probes;
    await until(() => probes >= failedAt + 2, 'two more failed probes');
    answer = { ok: true, detail: 'HTTP 200' };
    await until(() => m.results().get('a/x')?.state === 'passing', 'passing again');
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
    child.stdout.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString(); });
    const code = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('exit', (c) => { clearTimeout(killer); resolve(c); });
    });
    expect(output).toContain('probed');
    expect(code).toBe(0);
  }, 15_000);
});
