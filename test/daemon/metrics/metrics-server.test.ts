/**
 * The metrics endpoint over real HTTP on loopback: the Prometheus page with its content type, a pointer at /,
 * 404 and 405 for the rest, 503 while the daemon starts or cannot answer, a clear error for a taken port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { MetricsServerError, startMetricsServer, type MetricsServer } from '../../../src/daemon/metrics';
import { METRICS_MAX_CONNECTIONS } from '../../../src/daemon/metrics/metrics-server';
import { formatHostPort } from '../../../src/gossip/transport/address';
import { parseExposition, valueOf } from './exposition';
import { FakeSource } from './fake-source';

const silent = pino({ level: 'silent' });
const servers: MetricsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(
  source = new FakeSource(),
  ready?: () => boolean,
): Promise<{ server: MetricsServer; url: string; source: FakeSource }> {
  const server = await startMetricsServer({ bind: { host: '127.0.0.1', port: 0 }, source, logger: silent, ...(ready ? { ready } : {}) });
  servers.push(server);
  return { server, url: `http://${formatHostPort(server.address)}`, source };
}

describe('metrics server', () => {
  it('serves the Prometheus text format at /metrics', async () => {
    const { url, server } = await start();
    expect(server.address.host).toBe('127.0.0.1');
    expect(server.address.port).toBeGreaterThan(0);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const expo = parseExposition(await res.text());
    expect(valueOf(expo, 'metallb_k8s_client_config_stale_bool')).toBe(0);
  });

  it('points a browser at /metrics from /, and answers 404 and 405 elsewhere', async () => {
    const { url } = await start();
    const index = await fetch(`${url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await index.text()).toContain('href="/metrics"');
    expect((await fetch(`${url}/metrics/extra`)).status).toBe(404);
    expect((await fetch(`${url}/v1/snapshot`)).status).toBe(404);
    const post = await fetch(`${url}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('answers 503 while the daemon starts, and when it cannot be read, then recovers', async () => {
    let ready = false;
    const { url, source } = await start(new FakeSource(), () => ready);
    expect((await fetch(`${url}/metrics`)).status).toBe(503);
    ready = true;
    source.fail = new Error('snapshot failed');
    const failed = await fetch(`${url}/metrics`);
    expect(failed.status).toBe(503);
    expect(await failed.text()).toContain('snapshot failed');
    source.fail = undefined;
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
  });

  it('fails with metricsBindFailed when the port is taken', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const source = new FakeSource();
      const error = await startMetricsServer({ bind: { host: '127.0.0.1', port }, source, logger: silent }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MetricsServerError);
      expect((error as MetricsServerError).code).toBe('metricsBindFailed');
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
      // A failed start leaves no subscription behind.
      expect(source.subscribers).toBe(0);
    } finally {
      taken.close();
    }
  });

  it('stops listening when closed, even with a keep-alive connection open', async () => {
    const { url, server, source } = await start();
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    await server.close();
    expect(source.subscribers).toBe(0);
    await expect(fetch(`${url}/metrics`)).rejects.toThrow();
  });

  it('answers a scrape while more idle connections than its cap are open', async () => {
    const { url, server } = await start();
    const idle: Socket[] = [];
    try {
      // Connections that never send a request: a port scanner, a stuck client, or someone holding the port shut.
      for (let i = 0; i < METRICS_MAX_CONNECTIONS + 8; i++) {
        const socket = connect({ host: server.address.host, port: server.address.port });
        socket.on('error', () => undefined);
        idle.push(socket);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      }
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(200);
      expect(valueOf(parseExposition(await res.text()), 'metallb_k8s_client_config_stale_bool')).toBe(0);
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });
});
