/**
 * `mlb daemon --ignore-exclude-lb`, MetalLB's speaker flag: a node labelled
 * node.kubernetes.io/exclude-from-external-load-balancers never announces, unless the speakers run with the flag.
 * A user moving a DaemonSet that has it from MetalLB to mlb keeps the same owners. Two single-node daemons from the
 * built bundle, on loopback with --no-announce, one with the flag and one without, on the same configuration.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';
import { freeLoopbackPort } from '../support/free-port';
import { until } from '../support/until';
import { startDaemon, type RunningDaemon } from './run-daemon';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mlb-ignore-exclude-'));
const running: RunningDaemon[] = [];
afterAll(() => {
  for (const d of running) d.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
/** A failure bound for a daemon's start and first election on a busy machine, not a measure. */
const START_TIMEOUT_MS = 60_000;

const CONFIG = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: lan, namespace: metallb-system}
spec: {addresses: [192.0.2.0/28]}
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: lan, namespace: metallb-system}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default, annotations: {metallb.io/loadBalancerIPs: 192.0.2.5}}
spec: {type: LoadBalancer, ports: [{port: 80}]}
---
apiVersion: v1
kind: Node
metadata:
  name: edge-1
  labels: {node.kubernetes.io/exclude-from-external-load-balancers: ""}
`;

async function startEdge(name: string, extra: string[]): Promise<string> {
  const config = join(dir, 'mlb.yaml');
  writeFileSync(config, CONFIG);
  const socket = join(dir, `${name}.sock`);
  const daemon = startDaemon([
    '--config',
    config,
    '--node-name',
    'edge-1',
    '--gossip-bind',
    `127.0.0.1:${await freeLoopbackPort()}`,
    '--state-dir',
    join(dir, name),
    '--control-socket',
    socket,
    '--no-announce',
    ...extra,
  ]);
  running.push(daemon);
  await daemon.waitFor((l) => l.event === 'controlListening', START_TIMEOUT_MS);
  return socket;
}

interface Status {
  services: { service: string; ips: string[]; owner: string | null }[];
}

async function web(socket: string): Promise<Status['services'][number] | undefined> {
  const { stdout } = await run(process.execPath, [MLB_BUNDLE, 'status', '--json', '--socket', socket], { cwd: REPO_ROOT });
  return (JSON.parse(stdout) as Status).services.find((s) => s.service === 'default/web');
}

describe('mlb daemon --ignore-exclude-lb', () => {
  it(
    'lets the node labelled exclude-from-external-load-balancers announce; without it nobody does, and explain says why',
    async () => {
      const [plain, ignoring] = await Promise.all([startEdge('plain', []), startEdge('ignoring', ['--ignore-exclude-lb'])]);
      const elected = await until(
        'the flagged daemon elects its node',
        async () => (await web(ignoring))?.owner === 'edge-1' && true,
        START_TIMEOUT_MS,
      );
      expect(elected).toBe(true);
      const withoutFlag = await until('the plain daemon has elected', async () => web(plain), START_TIMEOUT_MS);
      expect(withoutFlag).toMatchObject({ ips: ['192.0.2.5'], owner: null });
      const { stdout } = await run(process.execPath, [MLB_BUNDLE, 'explain', '--socket', plain, 'default/web'], { cwd: REPO_ROOT }).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout }),
      );
      expect(stdout).toMatch(/exclude-from-external-load-balancers|nodeLabeledExcludeBalancers/);
    },
    3 * START_TIMEOUT_MS,
  );
});
