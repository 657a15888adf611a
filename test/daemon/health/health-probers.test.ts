// The probes against real things on this host: TCP and HTTP servers on loopback and real child processes. Each
// answers { ok, detail } with the reason a person needs, within its timeout, and leaves nothing running.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { probeExec, probeHttp, probeTcp, runProbe } from '../../../src/daemon/health/health-probers';
import { parseHealthCheck } from '../../../src/daemon/health/health-check-spec';
import { realHttpClient } from '../../../src/runtime/real-http-client';
import { realSignedTcp } from '../../../src/runtime/real-signed-tcp';
import { ManualScheduler } from '../../support/manual-scheduler';
import { until } from '../../support/until';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
const dir = mkdtempSync(join(tmpdir(), 'mlb-health-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

function specOf(target: string) {
  const parsed = parseHealthCheck({ 'mlb.io/health-check': target, 'mlb.io/health-check-timeout': '500ms' });
  if (!parsed.ok || !parsed.spec) throw new Error(`bad spec ${target}`);
  return parsed.spec;
}

/** The pids a shell wrote to `file` (one line), once the line is complete. */
const runningPids = (file: string): Promise<number[]> =>
  until(`the pids in ${file}`, () => {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    return text.endsWith('\n') ? text.trim().split(' ').map(Number) : undefined;
  });

/** The real network with a timeout clock moved by hand. */
const realIo = (scheduler: ManualScheduler) => ({ scheduler, net: realSignedTcp, http: realHttpClient });

/** Running, not a zombie waiting for whichever process adopted it to reap it. */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
};

describe('tcp probe', () => {
  it('passes when a connection is accepted, and fails with the kernel reason once nobody listens', async () => {
    const accepted: net.Socket[] = [];
    const server = net.createServer((s) => accepted.push(s));
    const port = await listen(server);
    expect(await runProbe(specOf(`tcp://127.0.0.1:${port}`))).toEqual({ ok: true, detail: `connected to 127.0.0.1:${port}` });
    await until('the server to see the connection', () => accepted.length === 1);
    expect(accepted).toHaveLength(1);
    await closers.pop()?.();
    expect(await probeTcp('127.0.0.1', port, 1000)).toEqual({
      ok: false,
      detail: `connection refused (connect ECONNREFUSED 127.0.0.1:${port})`,
    });
  });

  it('works over IPv6 loopback', async () => {
    const port = await listen(net.createServer(), '::1');
    expect(await runProbe(specOf(`tcp://[::1]:${port}`))).toEqual({ ok: true, detail: `connected to [::1]:${port}` });
  });
});

describe('http probe', () => {
  it('passes on 200 and fails on 503, sending GET with the path and query as written', async () => {
    const seen: string[] = [];
    const statuses = [200, 503];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['user-agent']}`);
      res.writeHead(statuses.shift() ?? 500).end('body is ignored');
    });
    const port = await listen(server);
    const spec = specOf(`http://127.0.0.1:${port}/healthz?full=1`);
    expect(await runProbe(spec)).toEqual({ ok: true, detail: 'HTTP 200' });
    expect(await runProbe(spec)).toEqual({ ok: false, detail: 'HTTP 503' });
    expect(seen).toEqual([`GET /healthz?full=1 mlb-health-check`, `GET /healthz?full=1 mlb-health-check`]);
  });

  it('does not follow a redirect, and does not wait for an endless body', async () => {
    const paths: string[] = [];
    const server = http.createServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/moved') return res.writeHead(302, { location: '/elsewhere' }).end();
      res.writeHead(200);
      res.write('x'); // never ended
    });
    const port = await listen(server);
    expect(await probeHttp({ host: '127.0.0.1', port, path: '/moved' }, 1000)).toEqual({
      ok: false,
      detail: 'HTTP 302 (redirects are not followed)',
    });
    // Passing, not "timed out": the status line is the answer, the body that never ends is not waited for.
    expect(await probeHttp({ host: '127.0.0.1', port, path: '/stream' }, 3000)).toEqual({ ok: true, detail: 'HTTP 200' });
    expect(paths).toEqual(['/moved', '/stream']);
  });

  it('times out on a server that accepts and never answers, and closes its connection', async () => {
    let accepted = false;
    let closed = false;
    const server = net.createServer((s) => {
      accepted = true;
      s.resume(); // read, so the probe's FIN is seen
      s.on('close', () => {
        closed = true;
      });
    });
    const port = await listen(server);
    // The timeout is on a clock moved by hand, once the connection is in: it is the timeout that ends the probe,
    // whatever the machine's load, and the test does not sit through it.
    const clock = new ManualScheduler();
    const pending = probeHttp({ host: '127.0.0.1', port, path: '/' }, 200, undefined, realIo(clock));
    await until('the server to accept the probe', () => accepted);
    await clock.advance(200);
    expect(await pending).toEqual({ ok: false, detail: 'timed out after 200 ms' });
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('fails with the connect error when nobody listens', async () => {
    const port = await listen(net.createServer());
    await closers.pop()?.();
    expect(await probeHttp({ host: '127.0.0.1', port, path: '/' }, 1000)).toEqual({
      ok: false,
      detail: `connection refused (connect ECONNREFUSED 127.0.0.1:${port})`,
    });
  });
});

describe('exec probe', () => {
  it('passes on exit 0 and fails with the exit code otherwise', async () => {
    expect(await runProbe(specOf('exec:/bin/true'))).toEqual({ ok: true, detail: 'exit 0' });
    expect(await runProbe(specOf('exec:/bin/false'))).toEqual({ ok: false, detail: 'exit 1' });
  });

  it('adds the last line the program said, stderr first', async () => {
    expect(await probeExec(['/bin/sh', '-c', 'echo starting; echo "db down" >&2; echo ignored; exit 3'], 2000)).toEqual({
      ok: false,
      detail: 'exit 3: db down',
    });
    expect(await probeExec(['/bin/sh', '-c', 'echo only stdout; exit 4'], 2000)).toEqual({ ok: false, detail: 'exit 4: only stdout' });
  });

  it('runs no shell: arguments reach the program as written', async () => {
    const out = join(dir, 'args');
    expect(await runProbe(specOf(`exec:/bin/sh -c 'printf %s "$0|$1" > ${out}' '$HOME' "a b"`))).toMatchObject({ ok: true });
    expect(readFileSync(out, 'utf8')).toBe('$HOME|a b');
  });

  it('kills a program that overruns its timeout, and what it started too', async () => {
    const pids = join(dir, 'pids');
    // The timeout is on a clock moved by hand, once the shell has written its pids: both processes run when it
    // passes, however slow the machine is to start them.
    const clock = new ManualScheduler();
    const pending = probeExec(['/bin/sh', '-c', `/bin/sleep 30 & echo $$ $! > ${pids}; wait`], 2000, undefined, undefined, {
      scheduler: clock,
    });
    const [shell, sleeper] = (await runningPids(pids)) as [number, number];
    await clock.advance(2000);
    expect(await pending).toEqual({ ok: false, detail: 'timed out after 2000 ms' });
    // The kill is sent before the probe answers; the kernel finishes the processes a moment later.
    await vi.waitFor(
      () => {
        expect(alive(shell)).toBe(false);
        expect(alive(sleeper)).toBe(false);
      },
      { timeout: 5000, interval: 20 },
    );
  });

  it('fails with the reason when the program cannot be run', async () => {
    expect(await probeExec(['/nonexistent/check'], 1000)).toEqual({ ok: false, detail: 'no such file (spawn /nonexistent/check ENOENT)' });
    expect(await probeExec([dir], 1000)).toEqual({ ok: false, detail: `permission denied (spawn ${dir} EACCES)` });
  });

  it('stops at once when aborted, and kills the program', async () => {
    const abort = new AbortController();
    const pid = join(dir, 'aborted-pid');
    const pending = probeExec(['/bin/sh', '-c', `echo $$ > ${pid}; exec /bin/sleep 30`], 10_000, abort.signal);
    // Aborted while the program runs (its pid is written), not before it started.
    const [sleeper] = (await runningPids(pid)) as [number];
    abort.abort();
    // 'aborted', not 'timed out after 10000 ms': the abort ended it, long before the sleep or the timeout would.
    expect(await pending).toEqual({ ok: false, detail: 'aborted' });
    await vi.waitFor(() => expect(alive(sleeper)).toBe(false), { timeout: 5000, interval: 20 });
    expect(await probeTcp('127.0.0.1', 1, 1000, AbortSignal.abort())).toEqual({ ok: false, detail: 'aborted' });
  });
});
