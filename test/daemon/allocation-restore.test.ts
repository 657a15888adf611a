/**
 * `mlb daemon` on loopback: a host that starts with an allocations.json from another life of the cluster (a
 * restored backup: other addresses, far higher versions) joins a running cluster, and no running service changes
 * its IP on any host; the host reports each difference with both sides.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../e2e/daemon-lab';
import { runMlb } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-restore-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Another range than daemon.test.ts's, so the two files can run side by side.

const SERVICES = ['demo/api', 'demo/db', 'demo/web'];
const CONFIG = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: lan, namespace: metallb-system }
spec:
  addresses: [192.168.10.200-192.168.10.220]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: lan, namespace: metallb-system }
${SERVICES.map(
  (key) => `---
apiVersion: v1
kind: Service
metadata: { name: ${key.split('/')[1]}, namespace: demo }
spec:
  type: LoadBalancer
  ports: [{ port: 80, protocol: TCP }]
`,
).join('')}`;

/** A backup from another life: every service at another address, versions far above the running cluster's. */
const FORGED = `{"format":1,"version":1000,"allocator":"node-z","writers":["node-z"],"entries":[
["demo/api",["192.168.10.218"],998,0,1600000000000],
["demo/db",["192.168.10.219"],999,0,1600000000000],
["demo/web",["192.168.10.220"],1000,0,1600000000000]
]}
`;

function daemon(name: string, port: number, extra: string[] = []): RunningDaemon {
  const d = startDaemon([
    '--config',
    join(dir, 'mlb.yaml'),
    '--node-name',
    name,
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--state-dir',
    join(dir, name),
    '--control-socket',
    join(dir, `${name}.sock`),
    '--no-announce',
    ...extra,
  ]);
  running.push(d);
  return d;
}

/** Each service's IPs as `mlb status --json` on that host shows them; undefined while one has none. */
function ipsOn(name: string): Record<string, string[]> | undefined {
  const run = runMlb(['status', '--json', '--socket', join(dir, `${name}.sock`)]);
  if (run.status !== 0) return undefined;
  const services = (JSON.parse(run.stdout) as { services: { service: string; ips: string[]; protocol: string }[] }).services;
  const out: Record<string, string[]> = {};
  for (const s of services) if (s.protocol === 'layer2' && s.ips.length > 0) out[s.service] = s.ips;
  return SERVICES.every((key) => out[key]) ? out : undefined;
}

const event =
  (name: string, fields: Record<string, unknown> = {}) =>
  (l: Record<string, unknown>) =>
    l.event === name && Object.entries(fields).every(([k, v]) => l[k] === v);

describe('mlb daemon with a restored allocations.json', () => {
  it('a host starting from a forged, higher-version file moves no running service', async () => {
    writeFileSync(join(dir, 'mlb.yaml'), CONFIG);
    const pa = await freeLoopbackPort();
    const a = daemon('node-a', pa);
    const b = daemon('node-b', await freeLoopbackPort(), ['--join', `127.0.0.1:${pa}`]);
    await b.waitFor(event('memberJoined', { member: 'node-a' }));
    const before = await eventually(() => ipsOn('node-a'));
    await eventually(() => (JSON.stringify(ipsOn('node-b')) === JSON.stringify(before) ? true : undefined));
    // Both show the IPs, so the allocator has published; its log line may reach this test after the status does.
    await eventually(() => (a.lines.some(event('allocationsPublished')) || b.lines.some(event('allocationsPublished')) ? true : undefined));
    const published = a.lines.filter(event('allocationsPublished')).length + b.lines.filter(event('allocationsPublished')).length;

    mkdirSync(join(dir, 'node-c'), { recursive: true });
    writeFileSync(join(dir, 'node-c', 'allocations.json'), FORGED);
    const c = daemon('node-c', await freeLoopbackPort(), ['--join', `127.0.0.1:${pa}`]);
    // The join's push/pull has carried both tables (node-c's to node-a, node-a's to node-c) once it is over.
    await c.waitFor(event('gossipJoin', { joined: 1 }));
    // Wait until node-c shows every service's IPs and agrees with node-a: the cluster has taken in whatever
    // node-c brought, one way or the other.
    const agreed = await eventually(() => {
      const [onA, onC] = [ipsOn('node-a'), ipsOn('node-c')];
      return onA && JSON.stringify(onA) === JSON.stringify(onC) ? onA : undefined;
    });
    expect(agreed).toEqual(before);
    expect(ipsOn('node-b')).toEqual(before);
    // Nobody wrote a new allocation for it.
    expect(a.lines.filter(event('allocationsPublished')).length + b.lines.filter(event('allocationsPublished')).length).toBe(published);
    expect(c.lines.some(event('allocationsPublished'))).toBe(false);

    // node-c says what it kept, with both sides.
    const conflicts = c.lines.filter(event('allocationRestoreConflict'));
    expect(conflicts.map((l) => l.service).sort()).toEqual(SERVICES);
    const web = conflicts.find((l) => l.service === 'demo/web');
    expect(web).toMatchObject({
      level: 'warn',
      kept: 'live',
      disk: { ips: ['192.168.10.220'], version: 1000, writer: 'node-z' },
      live: { ips: before['demo/web'] },
    });
    expect(c.lines.find(event('allocationsRestored'))).toMatchObject({ trigger: 'heard', filled: [], conflicts: 3 });
  });
});
