// `mlb daemon --kubernetes` as a user runs it in the speaker DaemonSet: the built bundle, the node name from
// METALLB_NODE_NAME, the configuration from the (fake) API server; `mlb status` on the node shows the election
// and the configuration's origin, and an API outage leaves the owner in place with the configuration stale.
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { until } from '../../support/until';
import { MLB_BUNDLE, REPO_ROOT, runMlb } from '../../cli/run-cli';
import { l2Advertisement, node, pool, service, slice } from './cluster-fixtures';

/** A failure bound per step, not a measure: loading client-node alone takes seconds on a busy machine. */
const STEP_TIMEOUT_MS = 90_000;

let api: FakeApiServer;
let dir: string;
let daemon: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  api = await startFakeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'mlb-kso-daemon-'));
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject) =>
    api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
  put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('public', ['192.0.2.0/28']));
  put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  put('', 'nodes', 'v1', 'Node', node('node-k'));
  put('', 'services', 'v1', 'Service', service('web', { ingress: ['192.0.2.5'], policy: 'Local' }));
  put(
    'discovery.k8s.io',
    'endpointslices',
    'discovery.k8s.io/v1',
    'EndpointSlice',
    slice('web-x1', 'web', [{ ip: '10.0.0.9', node: 'node-k' }]),
  );
});

afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon?.once('exit', resolve));
    daemon.kill('SIGTERM');
    await exited;
  }
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Status {
  readonly config: { readonly file: string; readonly state: string; readonly errors: string[] };
  readonly services: readonly { readonly service: string; readonly owner: string | null }[];
}

/** A port free for both TCP and UDP on loopback (gossip uses both). */
async function freePort(): Promise<number> {
  for (;;) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const udp = createSocket('udp4');
    const free = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    udp.close();
    if (free) return port;
  }
}

function status(socket: string): Status | undefined {
  const run = runMlb(['status', '--socket', socket, '--json']);
  return run.status === 0 ? (JSON.parse(run.stdout) as Status) : undefined;
}

describe('mlb daemon --kubernetes', () => {
  it(
    'reads the cluster, elects by EndpointSlice, and keeps the owner through an API outage',
    async () => {
      const socket = join(dir, 'mlb.sock');
      daemon = spawn(
        process.execPath,
        [
          MLB_BUNDLE,
          'daemon',
          '--kubernetes',
          '--kubeconfig',
          api.kubeconfigPath(dir),
          '--no-announce',
          '--state-dir',
          join(dir, 'state'),
          '--control-socket',
          socket,
          '--gossip-bind',
          `127.0.0.1:${await freePort()}`,
        ],
        { cwd: REPO_ROOT, env: { ...process.env, METALLB_NODE_NAME: 'node-k', METALLB_NAMESPACE: 'metallb-system' } },
      );
      daemon.stdout?.on('data', (b: Buffer) => (output += b.toString()));
      daemon.stderr?.on('data', (b: Buffer) => (output += b.toString()));
      const first = await until(
        'the daemon elects web',
        () => {
          if (daemon?.exitCode !== null) throw new Error(`the daemon exited ${daemon?.exitCode}`);
          const s = status(socket);
          return s?.services.some((x) => x.service === 'default/web' && x.owner === 'node-k') ? s : undefined;
        },
        STEP_TIMEOUT_MS,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${output}\n${JSON.stringify(runMlb(['status', '--socket', socket, '--json']))}`);
      });
      expect(first.config.file).toBe(`the Kubernetes API ${api.url}`);
      expect(first.config.state).toBe('ok');

      await api.faults.outage('refuse');
      const stale = await until(
        'the configuration is stale',
        () => {
          const s = status(socket);
          return s?.config.state === 'stale' ? s : undefined;
        },
        STEP_TIMEOUT_MS,
      );
      expect(stale.config.errors.join()).toMatch(/the Kubernetes API .* is unreachable since/);
      expect(stale.services.find((x) => x.service === 'default/web')?.owner).toBe('node-k');
      await api.faults.heal();
      await until('fresh again', () => status(socket)?.config.state === 'ok', STEP_TIMEOUT_MS);
    },
    4 * STEP_TIMEOUT_MS,
  );
});
