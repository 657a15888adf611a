// The speaker's probes in Kubernetes mode: /healthz while it serves, /readyz only once it is ready.
import { afterEach, describe, expect, it } from 'vitest';
import { startSpeakerHealthServer, type SpeakerHealthServer } from '../../../src/daemon/k8s/speaker-health-server';

let server: SpeakerHealthServer | undefined;
afterEach(async () => server?.close());

describe('speaker health server', () => {
  it('answers /healthz 200 at once and /readyz 503 until ready, then 200', async () => {
    let ready = false;
    server = await startSpeakerHealthServer({ host: '127.0.0.1', port: 0 }, () => ready);
    const get = async (path: string) => (await fetch(`http://127.0.0.1:${server!.address.port}${path}`)).status;
    expect(await get('/healthz')).toBe(200);
    expect(await get('/readyz')).toBe(503);
    ready = true;
    expect(await get('/readyz')).toBe(200);
    expect(await get('/metrics')).toBe(404);
  });

  it('fails to start when the port is taken, rather than running without probes', async () => {
    server = await startSpeakerHealthServer({ host: '127.0.0.1', port: 0 }, () => true);
    await expect(startSpeakerHealthServer({ host: '127.0.0.1', port: server.address.port }, () => true)).rejects.toThrow(/EADDRINUSE/);
  });
});
