/**
 * What `mlb daemon` says about the file it loads (at start and after a reload): each service that cannot get an
 * address is logged as an error at the field to change, with the same text and hint as `mlb validate`, while the
 * file is not refused and every other service gets its address; the file's warnings are logged too, and so is a
 * --node-name the file's Nodes do not list. On loopback with --no-announce, as test/daemon/daemon.test.ts.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-daemon-report-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: lan }
spec: { addresses: [192.168.10.200-192.168.10.220] }
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: l2 }
---
apiVersion: v1
kind: Node
metadata: { name: node-a }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: demo }
spec: { type: LoadBalancer, ports: [{ port: 80 }] }
---
apiVersion: v1
kind: Service
metadata:
  name: typo
  namespace: demo
  annotations:
    metallb.io/address-pool: lna
spec: { type: LoadBalancer, ports: [{ port: 80 }] }
`;

const event = (name: string) => (l: Record<string, unknown>) => l.event === name;

describe('mlb daemon: a service that cannot get an IP', () => {
  it('is logged as an error with its position and hint at load and after a reload, while the other services run', async () => {
    const config = join(dir, 'mlb.yaml');
    writeFileSync(config, CONFIG);
    const d = startDaemon([
      '--config',
      config,
      '--node-name',
      'node-b',
      '--gossip-bind',
      `127.0.0.1:${await freeLoopbackPort()}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      join(dir, 'mlb.sock'),
      '--no-announce',
    ]);
    running.push(d);

    const failed = await d.waitFor(event('serviceGetsNoIP'));
    expect(failed).toMatchObject({
      level: 'error',
      code: 'serviceGetsNoIP',
      position: `${config}:25:30`,
      object: 'Service/demo/typo',
      msg: `${config}:25:30: error: service demo/typo gets no IP: unknown pool "lna" (did you mean pool "lan"?)`,
    });
    const nodeName = await d.waitFor((l) => l.event === 'configWarning' && l.code === 'nodeNameNotInConfig');
    expect(nodeName).toMatchObject({
      level: 'warn',
      position: `${config}:10:1`,
      msg: `${config}:10:1: warning: --node-name "node-b" is not among the file's Nodes (node-a): this host gets none of their labels or conditions (did you mean "node-a"?)`,
    });

    // The file is not refused: the other service gets its address.
    const published = await d.waitFor((l) => l.event === 'allocationsPublished' && JSON.stringify(l.changes).includes('"demo/web"'));
    expect(JSON.stringify(published.changes)).toContain('192.168.10.200');
    expect(d.lines.some(event('configStale'))).toBe(false);

    // A reload says it again, about the file as it now is, once what the reload changed is announced: the
    // report reruns the file's allocation, and must not hold the announcement back.
    const added = `---
apiVersion: v1
kind: Service
metadata: { name: web2, namespace: demo }
spec: { type: LoadBalancer, ports: [{ port: 80 }] }
`;
    writeFileSync(`${config}.new`, CONFIG.replace('name: typo', 'name: typo2') + added);
    renameSync(`${config}.new`, config);
    const again = await d.waitFor((l) => l.event === 'serviceGetsNoIP' && l.object === 'Service/demo/typo2');
    expect(again.level).toBe('error');
    const announced = d.lines.findIndex((l) => l.event === 'serviceAnnounced' && l.service === 'demo/web2');
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(announced).toBeLessThan(d.lines.indexOf(again));
    expect(d.child.exitCode).toBeNull();
  });
});
