/**
 * The permissions deploy/ grants are exactly the documented ones (docs/kubernetes.md, "Permissions": one table
 * row per role, group, resource and resource names, with the verbs and why), so a rule cannot be added, widened
 * or dropped without the documentation saying so; none uses `*`; and the roles are bound to the service accounts
 * the workloads run as.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/run-cli';
import { type K8sObject, kubectlMissing, renderDeploy } from '../support/deploy-manifests';

const skip = kubectlMissing();
const TABLE_BEGIN = '<!-- rbac:begin -->';
const TABLE_END = '<!-- rbac:end -->';
const CORE_GROUP = 'core';

interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** One grant: "Kind name | group | resource | names | verb". */
function grant(role: string, group: string, resource: string, names: string, verb: string): string {
  return [role, group === '' ? CORE_GROUP : group, resource, names, verb].join(' | ');
}

function grantsOfManifests(objects: readonly K8sObject[]): string[] {
  return objects
    .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
    .flatMap((o) =>
      (o.rules as Rule[]).flatMap((r) =>
        r.apiGroups.flatMap((g) =>
          r.resources.flatMap((res) =>
            r.verbs.map((v) => grant(`${o.kind} ${o.metadata.name}`, g, res, (r.resourceNames ?? []).join(','), v)),
          ),
        ),
      ),
    );
}

function grantsOfDocs(): string[] {
  const text = readFileSync(join(REPO_ROOT, 'docs/kubernetes.md'), 'utf8');
  const begin = text.indexOf(TABLE_BEGIN);
  const end = text.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`docs/kubernetes.md lacks the ${TABLE_BEGIN} ... ${TABLE_END} table`);
  const rows = text
    .slice(begin + TABLE_BEGIN.length, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2); // the header and its separator
  return rows.flatMap((row) => {
    const [role, group, resource, names, verbs] = row
      .split('|')
      .slice(1, 6)
      .map((cell) => cell.trim()) as [string, string, string, string, string];
    return verbs.split(',').map((verb) => grant(role, group, resource, names, verb.trim()));
  });
}

describe.skipIf(skip !== undefined)(`the RBAC of deploy/${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await renderDeploy();
  });

  it('grants exactly what docs/kubernetes.md lists, rule by rule, each once', () => {
    const granted = grantsOfManifests(objects);
    expect(new Set(granted).size, 'a verb granted twice').toBe(granted.length);
    const documented = grantsOfDocs();
    expect(documented.length).toBeGreaterThan(0);
    expect(granted.sort()).toEqual(documented.sort());
  });

  it('uses no wildcard anywhere (groups, resources, names, verbs)', () => {
    for (const o of objects.filter((x) => x.kind === 'ClusterRole' || x.kind === 'Role')) {
      for (const r of o.rules as Rule[]) {
        const words = [...r.apiGroups, ...r.resources, ...(r.resourceNames ?? []), ...r.verbs];
        expect(
          words.filter((w) => w.includes('*')),
          `${o.kind}/${o.metadata.name}`,
        ).toEqual([]);
      }
    }
  });

  it('never lets mlb write a Service spec, a webhook configuration or a CRD', () => {
    const granted = grantsOfManifests(objects);
    const writes = ['create', 'update', 'patch', 'delete'];
    for (const g of granted) {
      const [, group, resource, , verb] = g.split(' | ') as [string, string, string, string, string];
      if (!writes.includes(verb)) continue;
      expect(`${group}/${resource}`, g).not.toBe(`${CORE_GROUP}/services`);
      expect(group, g).not.toBe('admissionregistration.k8s.io');
      expect(group, g).not.toBe('apiextensions.k8s.io');
    }
  });

  it('binds each role to the service accounts the controller and the speaker run as', () => {
    const bindings = objects
      .filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')
      .map((o) => {
        const ref = o.roleRef as { kind: string; name: string };
        const subjects = (o.subjects as { name: string }[]).map((s) => s.name).sort();
        return `${ref.kind} ${ref.name} -> ${subjects.join(',')}`;
      })
      .sort();
    expect(bindings).toEqual([
      'ClusterRole metallb-system:controller -> controller',
      'ClusterRole metallb-system:speaker -> speaker',
      'Role controller -> controller',
      'Role pod-lister -> controller,speaker',
    ]);
    const accounts = objects.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name);
    expect(accounts.sort()).toEqual(['controller', 'speaker']);
  });
});
