// mlb's own requests to the API server (the controller's status and event writes, the speaker's lists and
// writes) share kept-alive connections: client-node 1.4 hands out a new single-use agent per request, which
// opened a TCP connection (on a real cluster, a TLS handshake) for every write.
import { mkdtempSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeClient, loadKubeConfig } from '../../../src/sources/k8s/api/kube-client';
import { agentKey } from '../../../src/sources/k8s/api/keep-alive-agent';
import { writeKubeconfig } from '../../support/fake-apiserver/credentials';

let server: Server | undefined;
afterEach(async () => {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

/** An API server answering `{}` to everything, counting the TCP connections it accepts. */
async function countingServer(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

describe("mlb's requests to the Kubernetes API", () => {
  it('reuse one connection for requests one after the other, and a few for requests side by side', async () => {
    const api = await countingServer();
    const client = kubeClient(await loadKubeConfig(writeKubeconfig(mkdtempSync(join(tmpdir(), 'mlb-conn-')), api.url)));
    for (let i = 0; i < 20; i++) await client.put(`/api/v1/namespaces/default/services/s${i}/status`, { i });
    expect(api.connections()).toBe(1);
    await Promise.all(Array.from({ length: 40 }, (_, i) => client.get(`/api/v1/namespaces/default/services/s${i}`)));
    expect(api.connections()).toBeLessThanOrEqual(41);
    const before = api.connections();
    for (let i = 0; i < 20; i++) await client.get(`/api/v1/namespaces/default/services/s${i}`);
    expect(api.connections()).toBe(before);
  });

  it('keep separate connections apart when the TLS material differs (a rotated client certificate)', () => {
    const base = { ca: Buffer.from('ca'), cert: 'cert-1', key: 'key-1', rejectUnauthorized: true };
    expect(agentKey('https:', base)).toBe(agentKey('https:', { ...base }));
    expect(agentKey('https:', base)).not.toBe(agentKey('https:', { ...base, cert: 'cert-2' }));
    expect(agentKey('https:', base)).not.toBe(agentKey('http:', base));
  });
});
