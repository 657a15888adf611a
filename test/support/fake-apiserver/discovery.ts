/**
 * Discovery documents in their legacy (unaggregated) form: kubectl 1.32 first asks for the aggregated
 * apidiscovery.k8s.io/v2 documents and, given plain APIVersions/APIGroupList JSON, falls back to one
 * APIResourceList per group version, which is what this serves. /version answers as a 1.32 server.
 */
import { apiVersionOf, RESOURCE_VERBS, type ResourceCatalog } from './resource-catalog';

/** The Kubernetes version the fake claims: the one whose semantics it imitates (and kubectl's own minor). */
export const FAKE_KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-mlb-fake' };

const STATUS_VERBS = ['get', 'patch', 'update'];

export function versionDocument(): Record<string, string> {
  return {
    ...FAKE_KUBERNETES_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function coreVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(group: string, versions: string[]): unknown {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function groupList(catalog: ResourceCatalog): unknown {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: catalog.groups().map(({ group, versions }) => groupDocument(group, versions)),
  };
}

/** `/apis/GROUP`, or undefined when the group is not served. */
export function apiGroup(catalog: ResourceCatalog, group: string): unknown {
  const found = catalog.groups().find((entry) => entry.group === group);
  return found && { kind: 'APIGroup', apiVersion: 'v1', ...(groupDocument(found.group, found.versions) as object) };
}

/** `/api/v1` or `/apis/GROUP/VERSION`, or undefined when that group version is not served. */
export function resourceList(catalog: ResourceCatalog, group: string, version: string): unknown {
  const types = catalog.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const resources = types.flatMap((type) => {
    const main = {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: RESOURCE_VERBS,
      ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
    };
    const status = { name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: STATUS_VERBS };
    return type.statusSubresource ? [main, status] : [main];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(types[0]!, version), resources };
}
