/**
 * `mlb check` and `mlb explain`'s exit status against a real `mlb daemon` on loopback (--no-announce: nothing is
 * sent on the host's interfaces). Its file gives one service an IP in a pool whose L2Advertisement selects no node,
 * so nobody announces it: CRITICAL, and explain exits 1. Removing that service from the file (the daemon reloads
 * it) makes the check OK.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMlbAsync } from '../daemon/control/fake-daemon';
import { startDaemon, type RunningDaemon } from '../daemon/run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const COMMON = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: lan, namespace: metallb-system}
spec: {addresses: [192.168.10.200-192.168.10.220]}
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: elsewhere, namespace: metallb-system}
spec: {addresses: [192.168.20.0/24]}
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: lan, namespace: metallb-system}
spec: {ipAddressPools: [lan]}
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: elsewhere, namespace: metallb-system}
spec:
  ipAddressPools: [elsewhere]
  nodeSelectors: [{matchLabels: {rack: absent}}]
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: demo, annotations: {metallb.io/loadBalancerIPs: 192.168.10.200}}
spec: {type: LoadBalancer, ports: [{name: http, port: 80, protocol: TCP}]}
`;
const ORPHAN = `---
apiVersion: v1
kind: Service
metadata: {name: orphan, namespace: demo, annotations: {metallb.io/loadBalancerIPs: 192.168.20.5}}
spec: {type: LoadBalancer, ports: [{name: http, port: 80, protocol: TCP}]}
`;

const dir = mkdtempSync(join(tmpdir(), 'mlb-check-'));
const config = join(dir, 'mlb.yaml');
const socket = join(dir, 'mlb.sock');
let daemon: RunningDaemon | undefined;
afterAll(() => {
  daemon?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Asks the daemon until `done` holds for its snapshot: a reload reaches the election a moment after the log line. */
async function untilSnapshot(done: (s: { services: { service: string }[] }) => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await runMlbAsync(['status', '--json', '--socket', socket]);
    if (run.status === 0 && done(JSON.parse(run.stdout))) return;
    if (Date.now() > deadline) throw new Error(`the daemon's snapshot never got there; last: ${run.stdout}${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('mlb check and mlb explain against a running daemon', () => {
  it('CRITICAL (2) and explain exit 1 while nobody announces an IP; OK (0) once the file no longer has it', async () => {
    writeFileSync(config, COMMON + ORPHAN);
    const port = await freeLoopbackPort();
    daemon = startDaemon([
      '--config',
      config,
      '--node-name',
      'node-a',
      '--gossip-bind',
      `127.0.0.1:${port}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      socket,
      '--no-announce',
    ]);
    await daemon.waitFor((l) => l.event === 'serviceAnnounced' && l.service === 'demo/web');

    const check = await runMlbAsync(['check', '--socket', socket]);
    expect(check.stdout).toBe(
      'MLB CRITICAL - 192.168.20.5 (demo/orphan) announced by nobody | ips=2 unannounced=1 members_alive=1 members=1 conflicts=0\n',
    );
    expect(check.status).toBe(2);

    const orphan = await runMlbAsync(['explain', 'demo/orphan', '--socket', socket]);
    expect(orphan.stdout).toMatch(
      /^demo\/orphan 192\.168\.20\.5 \(layer2\): NOBODY ANNOUNCES \(as node-a sees it\)\n[^]*node-a +noMatchingAdvertisement/,
    );
    expect(orphan.stderr).toBe('mlb: nobody announces 192.168.20.5 (demo/orphan): the reasons are above\n');
    expect(orphan.status).toBe(1);
    const web = await runMlbAsync(['explain', '192.168.10.200', '--socket', socket, '--json']);
    expect(web.status).toBe(0);
    expect(JSON.parse(web.stdout)).toMatchObject([{ service: 'demo/web', winner: 'node-a' }]);
    const unknown = await runMlbAsync(['explain', '10.9.9.9', '--socket', socket]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(
      'mlb: no service has the IP 10.9.9.9; service IPs the daemon knows: demo/orphan 192.168.20.5, demo/web 192.168.10.200\n',
    );

    writeFileSync(config, COMMON);
    await untilSnapshot((s) => !s.services.some((svc) => svc.service === 'demo/orphan'));
    const healthy = await runMlbAsync(['check', '--socket', socket]);
    expect(healthy.stdout).toBe(
      'MLB OK - 1 service IP announced, 1/1 members alive | ips=1 unannounced=0 members_alive=1 members=1 conflicts=0\n',
    );
    expect(healthy.status).toBe(0);
  });
});
