/**
 * The install in deploy/ as kubectl sees it: `kubectl kustomize deploy/` rendered once per test file and parsed,
 * the CRD schemas indexed by apiVersion and kind, and the example objects under examples/. kubectl is on the
 * development image (v1.32); without it the tests that need it skip, and under CI=true that is a failure.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../cli/run-cli';
import type { ServedResource } from './fake-apiserver';
import type { Schema } from './openapi-schema';

const run = promisify(execFile);

/** The namespace every namespaced object of the install lives in (MetalLB's). */
export const INSTALL_NAMESPACE = 'metallb-system';
/** kubectl's output can be large (the CRDs); the default 1 MiB buffer is enough, this leaves room. */
const KUBECTL_MAX_BUFFER = 16 * 1024 * 1024;

export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** Why kubectl-based tests cannot run here, or undefined when they can (throws under CI=true). */
export function kubectlMissing(): string | undefined {
  if (spawnSync('sh', ['-c', 'command -v kubectl']).status === 0) return undefined;
  if (process.env.CI === 'true') throw new Error('kubectl is missing but CI=true: the image must provide it');
  return 'kubectl not installed';
}

/** Runs kubectl without blocking the event loop (a test's in-process server must keep answering). */
export async function kubectl(args: readonly string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return run('kubectl', [...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, maxBuffer: KUBECTL_MAX_BUFFER, encoding: 'utf8' });
}

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** `kubectl kustomize deploy/`, parsed. */
export async function renderDeploy(): Promise<K8sObject[]> {
  const { stdout } = await kubectl(['kustomize', join(REPO_ROOT, 'deploy')]);
  return parseObjects(stdout);
}

/** Each file under examples/ (top level) and examples/kubernetes/ that holds YAML, with its objects. */
export function exampleFiles(): { file: string; objects: K8sObject[] }[] {
  const dirs = ['examples', 'examples/kubernetes'];
  return dirs.flatMap((dir) =>
    readdirSync(join(REPO_ROOT, dir))
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => {
        const file = `${dir}/${name}`;
        return { file, objects: parseObjects(readFileSync(join(REPO_ROOT, file), 'utf8')) };
      }),
  );
}

interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema: { readonly openAPIV3Schema: Schema };
}

export interface Crd extends K8sObject {
  readonly spec: {
    readonly group: string;
    readonly scope: string;
    readonly names: { readonly kind: string; readonly plural: string; readonly shortNames?: readonly string[] };
    readonly versions: readonly CrdVersion[];
    readonly conversion?: { readonly strategy: string };
  };
}

export function crdsOf(objects: readonly K8sObject[]): Crd[] {
  return objects.filter((o): o is Crd => o.kind === 'CustomResourceDefinition');
}

/** The schema of each served apiVersion+kind, keyed "metallb.io/v1beta1 IPAddressPool". */
export function schemasByKind(crds: readonly Crd[]): Map<string, Schema> {
  const byKind = new Map<string, Schema>();
  for (const crd of crds) {
    for (const version of crd.spec.versions) {
      if (version.served) byKind.set(`${crd.spec.group}/${version.name} ${crd.spec.names.kind}`, version.schema.openAPIV3Schema);
    }
  }
  return byKind;
}

/** Built-in kinds the install and the examples use, for the fake API server to serve (namespaced or not, as in Kubernetes). */
export const BUILT_IN_RESOURCES: readonly ServedResource[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
];

/** The resources the CRDs define once installed, every served version. */
export function crdResources(crds: readonly Crd[]): ServedResource[] {
  return crds.flatMap((crd) =>
    crd.spec.versions
      .filter((v) => v.served)
      .map((v) => ({
        group: crd.spec.group,
        version: v.name,
        kind: crd.spec.names.kind,
        plural: crd.spec.names.plural,
        namespaced: crd.spec.scope === 'Namespaced',
      })),
  );
}
