/**
 * BGPPeer spec.passwordSecret in Kubernetes mode: the TCP MD5 key comes from a kubernetes.io/basic-auth Secret of
 * the MetalLB namespace (MetalLB v0.14+ internal/config/config.go), with MetalLB's errors when it cannot; a Secret
 * that appears or changes later reaches the peer without a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigState } from '../../../src/sources/config-source';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { loadKubeConfig } from '../../../src/sources/k8s/kube-config';
import { KubernetesSource } from '../../../src/sources/k8s/kubernetes-source';
import { translateCluster } from '../../../src/sources/k8s/translate-cluster';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { ManualRuntime } from '../../support/manual-runtime';
import { until } from '../../support/until';
import { basicCluster } from './cluster-fixtures';

const NS = 'metallb-system';
const ORIGIN = 'https://127.0.0.1:6443';

function peer(name: string, secretName: string): ApiObject {
  return {
    apiVersion: 'metallb.io/v1beta2',
    kind: 'BGPPeer',
    metadata: { name, namespace: NS, resourceVersion: '7' },
    spec: { myASN: 64500, peerASN: 64501, peerAddress: '192.0.2.254', passwordSecret: { name: secretName, namespace: NS } },
  };
}

function secret(name: string, type: string | undefined, data: Record<string, string>): ApiObject {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, ...(type ? { type } : {}), data: encoded };
}

function translate(secrets: ApiObject[]) {
  return translateCluster({ ...basicCluster(), bgppeers: [peer('router', 'bgp-password')], secrets }, ORIGIN).result;
}

function errorsOf(result: ReturnType<typeof translate>): { code: string; message: string }[] {
  return result.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ code: d.code, message: d.message }));
}

describe('BGPPeer passwordSecret from the API objects', () => {
  it('refuses the configuration when the MetalLB namespace has no Secret of that name', () => {
    const result = translate([secret('other', 'kubernetes.io/basic-auth', { password: 'x' })]);
    expect(result.ok).toBe(false);
    expect(errorsOf(result)).toEqual([
      { code: 'secretNotFound', message: 'secret ref not found for peer config "metallb-system"/"router"' },
    ]);
  });

  it('refuses a Secret that is not of type kubernetes.io/basic-auth (an Opaque one included)', () => {
    for (const type of [undefined, 'Opaque', 'kubernetes.io/tls']) {
      const result = translate([secret('bgp-password', type, { password: 'x' })]);
      expect(result.ok).toBe(false);
      expect(errorsOf(result)).toEqual([
        {
          code: 'secretTypeMismatch',
          message: 'secret type mismatch on "metallb-system"/"bgp-password", type "kubernetes.io/basic-auth" is expected',
        },
      ]);
    }
  });

  it('refuses a basic-auth Secret without the key password', () => {
    const result = translate([secret('bgp-password', 'kubernetes.io/basic-auth', { username: 'metallb' })]);
    expect(result.ok).toBe(false);
    expect(errorsOf(result)).toEqual([
      { code: 'secretPasswordMissing', message: 'password not specified in the secret "metallb-system"/"bgp-password"' },
    ]);
  });

  it("gives the peer the Secret's password as its TCP MD5 key, as spec.password would", () => {
    const result = translate([secret('bgp-password', 'kubernetes.io/basic-auth', { username: 'u', password: 'md5 key' })]);
    expect(result.ok && result.snapshot.bgpPeers.map((p) => [p.meta.name, p.password])).toEqual([['router', 'md5 key']]);
  });
});

describe('BGPPeer passwordSecret on the API server', () => {
  let api: FakeApiServer | undefined;
  let source: KubernetesSource | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await source?.stop();
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("turns the missing-Secret error into a peer with the password once the Secret appears, and follows its changes, not other Secrets'", async () => {
    api = await startFakeApiServer();
    dir = mkdtempSync(join(tmpdir(), 'mlb-ksp-secret-'));
    const runtime = new ManualRuntime();
    const create = (group: string, plural: string, object: ApiObject): void => {
      api!.store.create(api!.resourceType(group, plural), object as unknown as KubeObject);
    };
    const basic = basicCluster();
    for (const p of basic.ipaddresspools)
      create('metallb.io', 'ipaddresspools', { ...p, apiVersion: 'metallb.io/v1beta1', kind: 'IPAddressPool' });
    create('metallb.io', 'bgppeers', stripServerFields(peer('router', 'bgp-password')));

    const { kubeConfig } = await loadKubeConfig({ path: api.kubeconfigPath(dir) });
    source = new KubernetesSource({ kubeConfig, namespace: NS, runtime });
    let first: ConfigState | Error | undefined;
    source.start().then(
      (state) => (first = state),
      (error: Error) => (first = error),
    );
    await settled(runtime, () => first);
    // The peer cannot get its key: nothing loads, and the reason is MetalLB's.
    expect(first).toBeInstanceOf(Error);
    expect(source.state.snapshot).toBeUndefined();
    expect(source.state.diagnostics.map((d) => d.message)).toContain('secret ref not found for peer config "metallb-system"/"router"');

    create('', 'secrets', secret('bgp-password', 'kubernetes.io/basic-auth', { password: 'first key' }));
    await settled(runtime, () => source!.state.snapshot?.bgpPeers[0]?.password === 'first key' || undefined);
    expect(source.state.stale).toBe(false);
    expect(source.state.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);

    // Rotating the key in the Secret reaches the peer (whose session restarts on a new password).
    const secrets = api.resourceType('', 'secrets');
    const stored = api.store.get(secrets, NS, 'bgp-password');
    if (!stored) throw new Error('the Secret is gone');
    api.store.update(secrets, { ...stored, data: { password: Buffer.from('second key').toString('base64') } });
    await settled(runtime, () => source!.state.snapshot?.bgpPeers[0]?.password === 'second key' || undefined);

    // A Secret no peer names (a certificate rotated, the memberlist key) changes nothing.
    const running = source.state.snapshot;
    create('', 'secrets', secret('webhook-cert', 'kubernetes.io/tls', { 'tls.crt': 'x' }));
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 30));
      await runtime.advanceBy(200);
    }
    expect(source.state.snapshot).toBe(running);
  });
});

/** The fake assigns resourceVersions itself. */
function stripServerFields(object: ApiObject): ApiObject {
  const { resourceVersion: _rv, ...metadata } = object.metadata ?? {};
  return { ...object, metadata };
}

/** Runs the manual clock (debounce, restarts) a little at a time until `probe` gives something. */
async function settled<T>(runtime: ManualRuntime, probe: () => T | undefined, maxSteps = 200): Promise<T> {
  for (let step = 0; step < maxSteps; step++) {
    const found = await until('settled', () => probe() ?? false, 100).catch(() => undefined);
    if (found !== undefined) return found as T;
    await runtime.advanceBy(500);
  }
  throw new Error('not settled');
}
