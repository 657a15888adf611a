// A relist after 410 Gone changes nothing anyone can see. When the API server has compacted past a watch's
// resourceVersion (etcd compaction, an API server restart), every informer lists again and receives every
// object once more; the speaker (`mlb daemon --kubernetes`, the built bundle) and the controller must recognise
// them as what they already had: no announcement started or stopped, no Service status, Event, ServiceL2Status
// or pool status written. A new Service created after the relist is the barrier: once it is announced and
// written, anything the relist caused would have happened too, so nothing is asserted on a timer.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MetalLBController } from '../../../src/controller/controller-loop';
import { SILENT_LOG } from '../../../src/runtime/log';
import { kubeClient, loadKubeConfig } from '../../../src/sources/k8s/api/kube-client';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { type FakeApiServer, type KubeObject, startFakeApiServer } from '../../support/fake-apiserver';
import { freeLoopbackPort, freePortOnAll } from '../../support/free-port';
import { until } from '../../support/until';
import { l2Advertisement, node, pool, service, slice } from '../../sources/k8s/cluster-fixtures';
import { spawnKubernetesSpeaker, speakerPod } from './spawn-kubernetes-speaker';

const NS = 'metallb-system';
const NODE = 'node-a';
const SERVICES = 200;
const BARRIER_NS = 'barrier';
/** A failure bound per step, not a measure: a loaded machine needs seconds to start the bundle and list. */
const STEP_TIMEOUT_MS = 120_000;
const CHANGE_EVENTS = new Set(['serviceAnnounced', 'serviceWithdrawn', 'ownerChanged']);

let api: FakeApiServer | undefined;
let controller: MetalLBController | undefined;
let speaker: ChildProcess | undefined;
let dir: string | undefined;
let output = '';

afterAll(async () => {
  await controller?.stop();
  if (speaker && speaker.exitCode === null) {
    const exited = new Promise((resolve) => speaker!.once('exit', resolve));
    speaker.kill('SIGTERM');
    await exited;
  }
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The speaker's announce/withdraw/owner log events, in order. */
function changes(): { event: string; service: string }[] {
  const out: { event: string; service: string }[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { event?: string; service?: string };
      if (entry.event && CHANGE_EVENTS.has(entry.event)) out.push({ event: entry.event, service: entry.service ?? '' });
    } catch {
      // a line still being written
    }
  }
  return out;
}

/** name -> resourceVersion of every object of a type: what "nothing was rewritten" is checked against. */
function versions(server: FakeApiServer, group: string, plural: string): Map<string, string> {
  return new Map(
    server.store
      .list(server.resourceType(group, plural))
      .map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion ?? '']),
  );
}

function hasIngress(o: KubeObject): boolean {
  return ((o as { status?: { loadBalancer?: { ingress?: unknown[] } } }).status?.loadBalancer?.ingress ?? []).length > 0;
}

describe('a relist after 410 Gone', () => {
  it(
    're-announces nothing and writes nothing: no status, Event, ServiceL2Status or pool status',
    async () => {
      api = await startFakeApiServer({ objects: [speakerPod(NS, NODE, '127.0.0.1')] });
      const server = api;
      const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject) =>
        server.store.create(server.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
      for (const name of [NS, BARRIER_NS]) put('', 'namespaces', 'v1', 'Namespace', { metadata: { name } });
      put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('public', ['192.0.2.0/24']));
      put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
      put('', 'nodes', 'v1', 'Node', node(NODE));
      for (let i = 0; i < SERVICES; i++) {
        const name = `svc-${String(i).padStart(3, '0')}`;
        put('', 'services', 'v1', 'Service', service(name));
        put(
          'discovery.k8s.io',
          'endpointslices',
          'discovery.k8s.io/v1',
          'EndpointSlice',
          slice(`${name}-1`, name, [{ ip: '10.0.0.1', node: NODE }]),
        );
      }

      dir = mkdtempSync(join(tmpdir(), 'mlb-relist-'));
      const client = kubeClient(await loadKubeConfig(server.kubeconfigPath(dir, `system:serviceaccount:${NS}:controller`)));
      controller = new MetalLBController({
        client,
        namespace: NS,
        secretName: 'memberlist',
        deploymentName: 'controller',
        log: SILENT_LOG,
      });
      controller.start();
      const keyDir = join(dir, 'ml_secret_key');
      mkdirSync(keyDir);
      writeFileSync(join(keyDir, 'secretkey'), 'c2VjcmV0LXNlY3JldC0xMg', { mode: 0o400 });
      speaker = spawnKubernetesSpeaker({
        api: server,
        dir,
        namespace: NS,
        node: NODE,
        bindAddress: '127.0.0.1',
        bindPort: await freePortOnAll(['127.0.0.1']),
        keyDir,
        healthPort: await freeLoopbackPort(),
        onOutput: (text) => (output += text),
      }).child;

      // Settled: every Service written and announced, each with its ServiceL2Status and its two Events, and the
      // speaker's own ConfigurationState written (on a loaded machine it can come after the Services).
      const everything = () => {
        if (speaker!.exitCode !== null) throw new Error(`the speaker exited ${speaker!.exitCode}\n${output}`);
        const written = server.store.list(server.resourceType('', 'services')).filter(hasIngress).length;
        const l2 = server.store.list(server.resourceType('metallb.io', 'servicel2statuses'));
        const events = server.store.list(server.resourceType('', 'events'));
        const configurationState = server.store
          .list(server.resourceType('metallb.io', 'configurationstates'))
          .some(
            (c) =>
              (c as { metadata?: { name?: string }; status?: unknown }).metadata?.name === `speaker-${NODE}` &&
              (c as { status?: unknown }).status !== undefined,
          );
        return (
          configurationState &&
          written === SERVICES &&
          new Set(changes().map((c) => c.service)).size === SERVICES &&
          l2.filter((s) => (s as { status?: { node?: string } }).status?.node === NODE).length === SERVICES &&
          events.filter((e) => (e as { reason?: string }).reason === 'nodeAssigned').length === SERVICES &&
          events.filter((e) => (e as { reason?: string }).reason === 'IPAllocated').length === SERVICES
        );
      };
      await until('every service written and announced', everything, STEP_TIMEOUT_MS).catch((e: Error) => {
        throw new Error(`${e.message}\n${output.slice(-3000)}`);
      });
      const before = {
        services: versions(server, '', 'services'),
        events: versions(server, '', 'events'),
        l2: versions(server, 'metallb.io', 'servicel2statuses'),
        pools: versions(server, 'metallb.io', 'ipaddresspools'),
      };
      const announcedBefore = changes().length;
      const writesFrom = server.audit.entries.length;

      // Every resourceVersion the clients hold is now too old: their watches end with 410 and they list again.
      server.faults.compact();
      expect(server.faults.expireWatches()).toBeGreaterThan(0);
      const relisted = (subject: string, resource: string) =>
        server.audit.entries
          .slice(writesFrom)
          .some((e) => e.subject === subject && e.resource === resource && e.verb === 'list' && e.code === 200);
      await until(
        'the speaker and the controller listing again',
        () =>
          ['services', 'endpointslices', 'nodes', 'ipaddresspools'].every((r) => relisted(`system:serviceaccount:${NS}:speaker`, r)) &&
          relisted(`system:serviceaccount:${NS}:controller`, 'services'),
        STEP_TIMEOUT_MS,
      );

      // The barrier: a new Service, served from this node.
      put('', 'services', 'v1', 'Service', service('barrier', { namespace: BARRIER_NS }));
      put(
        'discovery.k8s.io',
        'endpointslices',
        'discovery.k8s.io/v1',
        'EndpointSlice',
        slice('barrier-1', 'barrier', [{ ip: '10.0.0.2', node: NODE }], { namespace: BARRIER_NS }),
      );
      await until(
        'the new service written and announced',
        () =>
          changes().some((c) => c.event === 'serviceAnnounced' && c.service === `${BARRIER_NS}/barrier`) &&
          hasIngress(server.store.get(server.resourceType('', 'services'), BARRIER_NS, 'barrier')!) &&
          server.store
            .list(server.resourceType('metallb.io', 'servicel2statuses'))
            .some((s) => (s as { status?: { serviceNamespace?: string; node?: string } }).status?.serviceNamespace === BARRIER_NS),
        STEP_TIMEOUT_MS,
      );

      const since = changes().slice(announcedBefore);
      expect(since.filter((c) => c.service !== `${BARRIER_NS}/barrier`)).toEqual([]);
      expect(since).toContainEqual({ event: 'serviceAnnounced', service: `${BARRIER_NS}/barrier` });
      const unchanged = (now: Map<string, string>, then: Map<string, string>) =>
        [...then].filter(([key, rv]) => now.get(key) !== rv).map(([key]) => key);
      expect(unchanged(versions(server, '', 'services'), before.services)).toEqual([]);
      expect(unchanged(versions(server, '', 'events'), before.events)).toEqual([]);
      expect(unchanged(versions(server, 'metallb.io', 'servicel2statuses'), before.l2)).toEqual([]);
      // Writes since the relist: only the new Service's (its status, its Events, its ServiceL2Status, the pool's
      // counters that its address changed).
      const writes = server.audit.entries
        .slice(writesFrom)
        .filter((e) => !['get', 'list', 'watch'].includes(e.verb))
        .filter((e) => e.namespace !== BARRIER_NS && e.resource !== 'servicel2statuses' && e.resource !== 'ipaddresspools');
      expect(writes.map((e) => `${e.verb} ${e.path}`)).toEqual([]);
      const poolWrites = server.audit.entries.slice(writesFrom).filter((e) => e.resource === 'ipaddresspools' && e.verb === 'update');
      expect(poolWrites.length).toBeLessThanOrEqual(1);
    },
    STEP_TIMEOUT_MS * 4,
  );
});
