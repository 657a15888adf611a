/**
 * `mlb explain --socket`: the running daemon's explanations (GET /v1/explain), selected and printed exactly as the
 * offline `mlb explain --config` does. The fake daemon serves the offline election of examples/plain-host.yaml,
 * so both outputs must be byte for byte the same.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlServer } from '../../src/daemon/control';
import { EXAMPLE_CONFIG, EXAMPLE_NODES, exampleExplanations, runMlbAsync, socketDir, startFakeDaemon } from '../daemon/control/fake-daemon';

const sockets = socketDir();
const path = join(sockets.dir, 'mlb.sock');
const offline = ['--config', EXAMPLE_CONFIG, '--nodes', EXAMPLE_NODES.join(',')];
let server: ControlServer;
beforeAll(async () => {
  ({ server } = await startFakeDaemon(path));
});
afterAll(async () => {
  await server.close();
  sockets.remove();
});

describe('mlb explain --socket', () => {
  it("--json prints the daemon's explanations, the same bytes as the offline election", async () => {
    const [live, file] = await Promise.all([
      runMlbAsync(['explain', '--socket', path, '--json']),
      runMlbAsync(['explain', ...offline, '--json']),
    ]);
    expect(live.stderr).toBe('');
    expect(live.status).toBe(0);
    expect(JSON.parse(live.stdout)).toEqual(await exampleExplanations());
    expect(live.stdout).toBe(file.stdout);
  });

  it('selects targets and renders the table exactly as offline', async () => {
    const targets = ['demo/web', '192.168.10.210'];
    const [live, file] = await Promise.all([
      runMlbAsync(['explain', ...targets, '--socket', path]),
      runMlbAsync(['explain', ...targets, ...offline]),
    ]);
    expect(live.status).toBe(0);
    expect(live.stdout).toMatch(/^demo\/web 192\.168\.10\.\d+ \(layer2\): owner node-[abc]\n/m);
    expect(live.stdout).toMatch(/^demo\/dns-tcp 192\.168\.10\.210 \(layer2\): owner node-[abc]\n/m);
    expect(live.stdout).toBe(file.stdout);
  });

  it('asks the daemon at MLB_SOCKET when no --config is given', async () => {
    const run = await runMlbAsync(['explain', 'demo/web', '--json'], { env: { MLB_SOCKET: path } });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).map((e: { service: string }) => e.service)).toEqual(['demo/web']);
  });

  it('says plainly when a target matches nothing the daemon knows (exit 1)', async () => {
    const run = await runMlbAsync(['explain', '10.9.9.9', '--socket', path]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('mlb: no service has the IP 10.9.9.9; service IPs the daemon knows: ');
  });

  it('refuses offline-only flags and --config together with --socket (exit 2)', async () => {
    expect((await runMlbAsync(['explain', '--socket', path, '--nodes', 'node-a'])).status).toBe(2);
    expect((await runMlbAsync(['explain', '--socket', path, '--config', EXAMPLE_CONFIG])).status).toBe(2);
  });

  it('says how to find the daemon when no socket exists (exit 1)', async () => {
    const run = await runMlbAsync(['explain', '--socket', join(sockets.dir, 'absent.sock')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('is mlb daemon running? it listens on /run/mlb/mlb.sock by default; pass --socket');
  });
});
