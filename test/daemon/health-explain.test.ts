/**
 * A health check as an operator meets it, with two real daemons on loopback (--no-announce): the node whose check
 * never passes says so once in its log, at warn, with the check's last result; the other node's `mlb explain`
 * names the failing node, since when and why (the detail travels in gossip), and describes its own ownership as
 * second in hash order because the first is not eligible.
 */
import { until } from '../support/until';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectControl } from '../../src/cli/control-client';
import { rankNodes } from '../../src/election';
import { runMlb } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-health-explain-'));
const running: RunningDaemon[] = [];
afterAll(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const IP = '192.168.10.200';
/** Fails (with a line a person would write) only where the daemon runs with BACKEND_DOWN set. */
const CHECK = 'exec:/bin/sh -c \'test -z "$BACKEND_DOWN" || { echo "HTTP 503 from the backend" >&2; exit 22; }\'';
const RESULT = 'exit 22: HTTP 503 from the backend';
const WAIT_MS = 20_000;

const config = `
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: lan, namespace: metallb-system}
spec: {addresses: [192.168.10.200-192.168.10.220]}
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: lan, namespace: metallb-system}
spec: {ipAddressPools: [lan]}
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: demo
  annotations:
    metallb.io/loadBalancerIPs: ${IP}
    mlb.io/health-check: ${JSON.stringify(CHECK)}
    mlb.io/health-check-interval: 1s
    mlb.io/health-check-timeout: 1s
spec:
  type: LoadBalancer
  ports: [{name: http, port: 80, protocol: TCP}]
`;

describe('mlb daemon: a failing health check, logged and explained', () => {
  it('logs a never-passing check once at warn and the other node explains it by name, with its last result', async () => {
    const file = join(dir, 'mlb.yaml');
    writeFileSync(file, config);
    // The node first in hash order for the IP fails its check: the other owns the IP as second in hash order.
    const [failing, healthy] = rankNodes(['node-a', 'node-b'], IP) as [string, string];
    const socket = (name: string) => join(dir, `${name}.sock`);
    const start = (name: string, port: number, extra: string[], env: string[]) => {
      const d = startDaemon(
        [
          '--config',
          file,
          '--node-name',
          name,
          '--gossip-bind',
          `127.0.0.1:${port}`,
          '--state-dir',
          join(dir, name),
          '--control-socket',
          socket(name),
          '--no-announce',
          ...extra,
        ],
        undefined,
        ['env', ...env],
      );
      running.push(d);
      return d;
    };
    const healthyPort = await freeLoopbackPort();
    start(healthy, healthyPort, [], []);
    const sick = start(failing, await freeLoopbackPort(), ['--join', `127.0.0.1:${healthyPort}`], ['BACKEND_DOWN=1']);

    const warned = await sick.waitFor((l) => l.event === 'healthCheckFailing', WAIT_MS);
    expect(warned).toMatchObject({ level: 'warn', service: 'demo/web', result: RESULT, cause: 'firstProbe' });
    expect(warned.msg).toContain(`health check demo/web on ${failing} is failing`);

    // The healthy node learns why through gossip and its explanation says it.
    const explained = await until(
      `${healthy} to know why ${failing}'s check fails`,
      async () => {
        const [e] = await connectControl(socket(healthy)).getExplain({ services: ['demo/web'] });
        const about = e?.candidates.find((c) => c.node === failing);
        return e?.winner === healthy && about?.healthCheck?.result === RESULT ? e : undefined;
      },
      WAIT_MS,
    );
    expect(explained.viewer).toBe(healthy);

    const cli = runMlb(['explain', 'demo/web', '--socket', socket(healthy)]);
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain(`(as ${healthy} sees it)`);
    expect(cli.stdout).toMatch(new RegExp(`health check demo/web failing on ${failing} since \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z: ${RESULT}`));
    expect(cli.stdout).toContain(
      `second in hash order; ${failing} (first) is not eligible: its health check demo/web fails (${RESULT}); answers for the IP`,
    );
    expect(cli.stdout).not.toContain('this node');

    // Probed every second all along: still the one line, not one per probe.
    expect(sick.lines.filter((l) => l.event === 'healthCheckFailing')).toHaveLength(1);
  });
});
