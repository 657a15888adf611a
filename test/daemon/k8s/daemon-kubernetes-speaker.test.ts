// `mlb daemon --kubernetes` as the speaker DaemonSet runs it, two of them (127.0.0.1 and 127.0.0.2, the same
// memberlist port, as two hosts would have): with no --join they find each other from the speaker pods listed by
// METALLB_ML_LABELS (pod IPs, METALLB_ML_BIND_PORT), gossip encrypted with the memberlist secretkey, answer
// /readyz on --health-bind once joined, and the owner writes the ServiceL2Status (owned by its Pod) and each its
// ConfigurationState. The built bundle, against the fake API server enforcing deploy/'s RBAC for the speaker account.
import { speakerPod, speakerStatus, spawnKubernetesSpeaker } from './spawn-kubernetes-speaker';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { rbacFromManifestText, startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { kubectl, kubectlMissing } from '../../support/deploy-manifests';
import { until } from '../../support/until';
import { l2Advertisement, node, pool, service, slice } from '../../sources/k8s/cluster-fixtures';

/** A failure bound per step, not a measure: loading client-node alone takes seconds on a busy machine. */
const STEP_TIMEOUT_MS = 60_000;
const NS = 'metallb-system';
const HOSTS = { 'node-a': '127.0.0.1', 'node-b': '127.0.0.2' } as const;

let api: FakeApiServer;
let dir: string;
const daemons: ChildProcess[] = [];
let output = '';

const speakerPodAt = (nodeName: string, ip: string): KubeObject => speakerPod(NS, nodeName, ip);

beforeAll(async () => {
  // Under deploy/'s RBAC when kubectl can render it: every request the speakers make must be one their roles allow.
  const rbac = kubectlMissing() === undefined ? rbacFromManifestText((await kubectl(['kustomize', 'deploy/'])).stdout) : undefined;
  api = await startFakeApiServer({ objects: Object.entries(HOSTS).map(([n, ip]) => speakerPodAt(n, ip)), ...(rbac && { rbac }) });
  api.store.create(api.resourceType('', 'namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } as KubeObject);
  dir = mkdtempSync(join(tmpdir(), 'mlb-kst-daemon-'));
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject) =>
    api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
  put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('public', ['192.0.2.0/28']));
  put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  for (const name of Object.keys(HOSTS)) put('', 'nodes', 'v1', 'Node', node(name));
  put('', 'services', 'v1', 'Service', service('web', { ingress: ['192.0.2.5'], policy: 'Local' }));
  put(
    'discovery.k8s.io',
    'endpointslices',
    'discovery.k8s.io/v1',
    'EndpointSlice',
    slice('web-x1', 'web', [{ ip: '10.0.0.9', node: 'node-b' }]),
  );
});

afterAll(async () => {
  for (const daemon of daemons) {
    if (daemon.exitCode !== null) continue;
    const exited = new Promise((resolve) => daemon.once('exit', resolve));
    daemon.kill('SIGTERM');
    await exited;
  }
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port free for TCP and UDP on every given loopback address (gossip uses both). */
async function freePort(hosts: readonly string[]): Promise<number> {
  for (;;) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, hosts[0], resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    let free = true;
    for (const host of hosts) {
      const udp = createSocket('udp4');
      free &&= await new Promise<boolean>((resolve) => {
        udp.once('error', () => resolve(false));
        udp.bind(port, host, () => resolve(true));
      });
      udp.close();
    }
    if (free) return port;
  }
}

interface Status {
  readonly node: { readonly gossip: { readonly bind: string; readonly encrypted: boolean } };
  readonly members: readonly { readonly name: string; readonly state: string }[];
  readonly services: readonly { readonly service: string; readonly owner: string | null }[];
}

const status = (socket: string): Promise<Status | undefined> => speakerStatus<Status>(socket);

async function readyz(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
  } catch {
    return 0;
  }
}

describe('mlb daemon --kubernetes, the speaker in a cluster', () => {
  it(
    'finds the other speaker from its pod, reports ready, and the owner writes its ServiceL2Status',
    async () => {
      const keyDir = join(dir, 'ml_secret_key');
      mkdirSync(keyDir);
      writeFileSync(join(keyDir, 'secretkey'), 'c2VjcmV0LXNlY3JldC0xMg', { mode: 0o400 });
      const mlPort = await freePort(Object.values(HOSTS));
      const started = Object.entries(HOSTS).map(async ([name, host]) => {
        const healthPort = await freePort(['127.0.0.1']);
        const { socket, child: daemon } = spawnKubernetesSpeaker({
          api,
          dir,
          namespace: NS,
          node: name,
          bindAddress: host,
          bindPort: mlPort,
          keyDir,
          healthPort,
          onOutput: (text) => (output += text),
        });
        daemons.push(daemon);
        return { name, socket, healthPort, daemon };
      });
      const running = await Promise.all(started);
      for (const r of running) {
        await until(
          `${r.name} sees both speakers`,
          async () => {
            if (r.daemon.exitCode !== null) throw new Error(`${r.name} exited ${r.daemon.exitCode}`);
            return (await status(r.socket))?.members.filter((m) => m.state === 'alive').length === 2;
          },
          STEP_TIMEOUT_MS,
        ).catch((error: Error) => {
          throw new Error(`${error.message}\n${output}`);
        });
        const s = (await status(r.socket))!;
        expect(s.node.gossip).toMatchObject({ bind: `${HOSTS[r.name as keyof typeof HOSTS]}:${mlPort}`, encrypted: true });
        await until(`${r.name} /readyz`, async () => (await readyz(r.healthPort)) === 200, STEP_TIMEOUT_MS);
      }
      // The speakers were found by listing the pods with the label selector in their namespace.
      expect(api.audit.count({ verb: 'list', resource: 'pods', namespace: NS, code: 200 })).toBeGreaterThanOrEqual(2);

      const l2 = () =>
        api.store.list(api.resourceType('metallb.io', 'servicel2statuses'), NS) as unknown as {
          metadata: { ownerReferences?: { name: string }[] };
          status?: { node?: string };
        }[];
      await until('node-b writes the ServiceL2Status', () => l2().length === 1 && l2()[0]!.status?.node === 'node-b', STEP_TIMEOUT_MS);
      expect(l2()[0]!.metadata.ownerReferences?.map((o) => o.name)).toEqual(['speaker-node-b']);
      const states = api.store.list(api.resourceType('metallb.io', 'configurationstates'), NS).map((o) => o.metadata.name);
      expect(states.sort()).toEqual(['speaker-node-a', 'speaker-node-b']);
      // nodeAssigned on the Service, from metallb-speaker.
      const events = api.store.list(api.resourceType('', 'events'), 'default') as unknown as {
        reason: string;
        source: { component: string };
      }[];
      expect(events.map((e) => [e.reason, e.source.component])).toEqual([['nodeAssigned', 'metallb-speaker']]);
      expect(api.audit.forbidden()).toEqual([]);
    },
    4 * STEP_TIMEOUT_MS,
  );
});
