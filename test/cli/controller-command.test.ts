// `mlb controller` as the Deployment runs it: the built bundle against the fake API server, probed on its health
// port, scraped on its metrics port, stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeApiServer, startFakeApiServer } from '../support/fake-apiserver';
import { rawClient } from '../support/fake-apiserver/raw-client';
import { until } from '../support/until';
import { MLB_BUNDLE, REPO_ROOT, runMlbInProcess } from './run-cli';

const NS = 'metallb-system';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function httpGet(url: string): Promise<{ status: number; text: string } | undefined> {
  try {
    const res = await fetch(url);
    return { status: res.status, text: await res.text() };
  } catch {
    return undefined;
  }
}

let api: FakeApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('mlb controller', () => {
  it('--help teaches with an example', async () => {
    const run = await runMlbInProcess(['controller', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('  mlb controller --kubeconfig ~/.kube/config --namespace metallb-system');
  });

  it('allocates against an API server, serves /readyz and /metrics, and stops cleanly on SIGTERM', async () => {
    api = await startFakeApiServer();
    const raw = rawClient(api.url);
    await raw.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await raw.send('POST', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools`, {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'IPAddressPool',
      metadata: { name: 'main', namespace: NS },
      spec: { addresses: ['192.0.2.20/31'] },
    });
    const kubeconfig = api.kubeconfigPath(mkdtempSync(join(tmpdir(), 'mlb-ctl-cli-')));
    const [metricsPort, healthPort] = [await freePort(), await freePort()];
    const child = spawn(
      process.execPath,
      [
        MLB_BUNDLE,
        'controller',
        '--kubeconfig',
        kubeconfig,
        '--metrics-bind',
        `127.0.0.1:${metricsPort}`,
        '--health-bind',
        `127.0.0.1:${healthPort}`,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, METALLB_NAMESPACE: NS, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      expect((await until('alive', () => httpGet(`http://127.0.0.1:${healthPort}/healthz`)))?.status).toBe(200);
      await until('ready', async () => (await httpGet(`http://127.0.0.1:${healthPort}/readyz`))?.status === 200);

      await raw.send('POST', '/api/v1/namespaces/default/services', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', namespace: 'default' },
        spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
      });
      const ingress = await until('web has its address', async () => {
        const web = await raw.send('GET', '/api/v1/namespaces/default/services/web');
        return web.body.status?.loadBalancer?.ingress;
      });
      expect(ingress).toEqual([{ ip: '192.0.2.20', ipMode: 'VIP' }]);

      const metrics = await until('metrics show the address in use', async () => {
        const m = await httpGet(`http://127.0.0.1:${metricsPort}/metrics`);
        return m?.text.includes('metallb_allocator_addresses_in_use_total{pool="main"} 1') && m.text;
      });
      expect(metrics).toContain('metallb_allocator_addresses_total{pool="main"} 2');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; event?: string });
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.map((l) => l.event)).toEqual(expect.arrayContaining(['configLoaded', 'serviceUpdated', 'shutdown']));
  });
});
