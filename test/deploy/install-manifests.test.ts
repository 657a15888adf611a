/**
 * deploy/ as an administrator installs it (`kubectl apply -k deploy/`): it renders offline, every object is well
 * formed and in metallb-system when namespaced, and the two workloads carry what a MetalLB drop-in needs (names,
 * labels, service accounts, the host network for the speaker and nothing more than NET_RAW + NET_ADMIN, the
 * memberlist secret, the probes MetalLB's tooling expects, plain metrics on 7472, the node-local control socket).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-cli';
import { INSTALL_NAMESPACE, type K8sObject, kubectlMissing, renderDeploy } from '../support/deploy-manifests';

const skip = kubectlMissing();

/** Every kind the install holds, with its scope; a new kind must be added here, with a decision on its scope. */
const KIND_SCOPE: Readonly<Record<string, 'namespaced' | 'cluster'>> = {
  Namespace: 'cluster',
  CustomResourceDefinition: 'cluster',
  ClusterRole: 'cluster',
  ClusterRoleBinding: 'cluster',
  ServiceAccount: 'namespaced',
  Role: 'namespaced',
  RoleBinding: 'namespaced',
  Deployment: 'namespaced',
  DaemonSet: 'namespaced',
};
const CONTRACT_IMAGE = 'mlb:0.1.0';

interface Container {
  name: string;
  image: string;
  args: string[];
  env: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports: { name: string; containerPort: number; protocol: string }[];
  livenessProbe: { httpGet: { path: string; port: number; host?: string } };
  readinessProbe: { httpGet: { path: string; port: number; host?: string } };
  securityContext: {
    allowPrivilegeEscalation: boolean;
    readOnlyRootFilesystem: boolean;
    runAsUser?: number;
    capabilities: { drop: string[]; add?: string[] };
  };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Volume {
  name: string;
  secret?: { secretName: string; optional?: boolean };
  hostPath?: { path: string; type: string };
  emptyDir?: object;
}
interface PodSpec {
  serviceAccountName: string;
  hostNetwork?: boolean;
  tolerations?: { key: string; operator: string; effect: string }[];
  nodeSelector: Record<string, string>;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  volumes: Volume[];
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    strategy?: object;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is not in the rendered install`);
  return found;
}

function envOf(c: Container): Record<string, string> {
  return Object.fromEntries(c.env.map((e) => [e.name, e.value ?? `fieldRef:${e.valueFrom?.fieldRef?.fieldPath}`]));
}

/** The mount paths a read-only-root container can write to: every mount that is not read-only. */
function writablePaths(c: Container): string[] {
  return c.volumeMounts
    .filter((m) => m.readOnly !== true)
    .map((m) => m.mountPath)
    .sort();
}

describe.skipIf(skip !== undefined)(`deploy/ rendered by kubectl kustomize${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await renderDeploy();
  });

  it('renders every object well formed: apiVersion, kind, a name, namespaced ones in metallb-system only', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) {
      const what = `${o.kind}/${o.metadata?.name}`;
      expect(typeof o.apiVersion, what).toBe('string');
      expect(o.metadata.name, what).toMatch(/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/);
      expect(Object.keys(KIND_SCOPE), `${what}: a kind the install did not hold before`).toContain(o.kind);
      if (KIND_SCOPE[o.kind] === 'namespaced') expect(o.metadata.namespace, what).toBe(INSTALL_NAMESPACE);
      else expect(o.metadata.namespace, `${what} is cluster-scoped`).toBeUndefined();
    }
    const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(names).size, 'no object twice').toBe(names.length);
    expect(names).toContain(`Namespace/${INSTALL_NAMESPACE}`);
  });

  it('binds the ClusterRoles to the service accounts of metallb-system (kustomize fills the subject namespace)', () => {
    for (const o of objects.filter((x) => x.kind === 'ClusterRoleBinding' || x.kind === 'RoleBinding')) {
      for (const s of o.subjects as { kind: string; name: string; namespace?: string }[]) {
        expect(s.kind).toBe('ServiceAccount');
        expect(['controller', 'speaker']).toContain(s.name);
        expect(s.namespace, `${o.kind}/${o.metadata.name}`).toBe(INSTALL_NAMESPACE);
      }
    }
  });

  it('runs the controller as MetalLB does: one replica, its labels and service account, no host access, no capabilities', () => {
    const d = find(objects, 'Deployment', 'controller') as Workload;
    expect(d.spec.replicas).toBe(1);
    // Never two allocators at once, even for the seconds of an upgrade.
    expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    expect(d.spec.selector.matchLabels).toEqual({ app: 'metallb', component: 'controller' });
    expect(d.spec.template.metadata.labels).toMatchObject({ app: 'metallb', component: 'controller' });
    const pod = d.spec.template.spec;
    expect(pod.serviceAccountName).toBe('controller');
    expect(pod.hostNetwork ?? false).toBe(false);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65534 });
    const [c] = pod.containers;
    expect(pod.containers).toHaveLength(1);
    expect(c!.image).toBe(CONTRACT_IMAGE);
    expect(c!.args[0]).toBe('controller');
    expect(c!.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(c!.securityContext.capabilities.add).toBeUndefined();
    expect(envOf(c!)).toEqual({
      METALLB_POD_NAME: 'fieldRef:metadata.name',
      METALLB_ML_SECRET_NAME: 'memberlist',
      METALLB_DEPLOYMENT: 'controller',
    });
    expect(c!.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 17472 });
    expect(c!.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 17472 });
    expect(c!.ports.find((p) => p.name === 'monitoring')?.containerPort).toBe(7472);
    expect(writablePaths(c!)).toEqual(['/tmp']);
  });

  it('runs the speaker on every node in the host network with NET_RAW and NET_ADMIN only, MetalLB env and tolerations', () => {
    const ds = find(objects, 'DaemonSet', 'speaker') as Workload;
    expect(ds.spec.selector.matchLabels).toEqual({ app: 'metallb', component: 'speaker' });
    const pod = ds.spec.template.spec;
    expect(pod.serviceAccountName).toBe('speaker');
    expect(pod.hostNetwork).toBe(true);
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    expect(pod.tolerations).toEqual([
      { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const [c] = pod.containers;
    expect(pod.containers).toHaveLength(1);
    expect(c!.image).toBe(CONTRACT_IMAGE);
    expect(c!.args.slice(0, 2)).toEqual(['daemon', '--kubernetes']);
    expect(c!.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(c!.securityContext.capabilities.drop).toEqual(['ALL']);
    expect([...(c!.securityContext.capabilities.add ?? [])].sort()).toEqual(['NET_ADMIN', 'NET_RAW']);
    const env = envOf(c!);
    // The labels the speakers find each other by must be the pod's own, or memberlist never forms.
    const labels = Object.fromEntries(env.METALLB_ML_LABELS!.split(',').map((kv) => kv.split('=')));
    expect(ds.spec.template.metadata.labels).toMatchObject(labels);
    expect(env).toMatchObject({
      METALLB_NODE_NAME: 'fieldRef:spec.nodeName',
      METALLB_POD_NAME: 'fieldRef:metadata.name',
      METALLB_ML_BIND_ADDR: 'fieldRef:status.podIP',
      METALLB_ML_BIND_PORT: '7946',
      METALLB_ML_LABELS: 'app=metallb,component=speaker',
      METALLB_ML_SECRET_KEY_PATH: '/etc/ml_secret_key',
    });
    // hostNetwork: health only on loopback, and the kubelet probes it there.
    expect(c!.livenessProbe.httpGet).toEqual({ host: '127.0.0.1', path: '/healthz', port: 17472 });
    expect(c!.readinessProbe.httpGet).toEqual({ host: '127.0.0.1', path: '/readyz', port: 17472 });
    expect(c!.args).toContain('--metrics-bind=$(METALLB_HOST)');
    expect(env.METALLB_HOST).toBe('fieldRef:status.hostIP');
    expect(c!.ports.map((p) => `${p.containerPort}/${p.protocol}`).sort()).toEqual(['7472/TCP', '7946/TCP', '7946/UDP']);
  });

  it('gives the speaker the memberlist secret (required), /run/mlb and /var/lib/mlb on the host, and nothing else writable but /tmp', () => {
    const pod = (find(objects, 'DaemonSet', 'speaker') as Workload).spec.template.spec;
    const c = pod.containers[0]!;
    const volume = (mountPath: string): Volume => {
      const mount = c.volumeMounts.find((m) => m.mountPath === mountPath);
      const v = pod.volumes.find((x) => x.name === mount?.name);
      if (!v) throw new Error(`nothing mounted at ${mountPath}`);
      return v;
    };
    expect(volume('/etc/ml_secret_key').secret).toEqual(expect.objectContaining({ secretName: 'memberlist', optional: false }));
    expect(c.volumeMounts.find((m) => m.mountPath === '/etc/ml_secret_key')?.readOnly).toBe(true);
    expect(volume('/run/mlb').hostPath).toEqual({ path: '/run/mlb', type: 'DirectoryOrCreate' });
    expect(volume('/var/lib/mlb').hostPath).toEqual({ path: '/var/lib/mlb', type: 'DirectoryOrCreate' });
    expect(volume('/tmp').emptyDir).toBeDefined();
    expect(writablePaths(c)).toEqual(['/run/mlb', '/tmp', '/var/lib/mlb']);
  });

  it('ships no memberlist secret and no webhook: the controller creates the secret, configuration is checked on load', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(objects.map((o) => o.kind)).not.toContain('ValidatingWebhookConfiguration');
  });
});

describe('the CRD files', () => {
  it('are what scripts/generate-crds.mjs makes from scripts/crds/ (no hand edit drifts from the schema source)', () => {
    const check = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/generate-crds.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
