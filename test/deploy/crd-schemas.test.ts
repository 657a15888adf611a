/**
 * The CRDs of deploy/ against MetalLB's API and against the objects users have:
 * - every metallb.io kind is there with MetalLB's group, versions, plural, scope, storage version, status
 *   subresource and printer columns, so an install that swaps MetalLB's CRDs for mlb's (or keeps MetalLB's) reads
 *   the same stored objects and `kubectl get` prints the same columns;
 * - every schema is structural (the API server refuses a CRD whose schema is not, and prunes by it);
 * - every metallb.io object in examples/ and in a fixture that uses every MetalLB field validates against its
 *   schema (test/support/openapi-schema.ts), while typical mistakes are refused, so the validator is not vacuous;
 * - mlb's own parser accepts every example file (a cluster example is also a plain-host configuration).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/model/parse/parse-config';
import { REPO_ROOT } from '../cli/run-cli';
import {
  type Crd,
  crdsOf,
  exampleFiles,
  INSTALL_NAMESPACE,
  type K8sObject,
  kubectlMissing,
  parseObjects,
  renderDeploy,
  schemasByKind,
} from '../support/deploy-manifests';
import { type Schema, structuralProblems, validate } from '../support/openapi-schema';

const skip = kubectlMissing();

interface KindFacts {
  plural: string;
  versions: string[];
  storage: string;
  columns: string[];
}

/** MetalLB v0.16's CRDs (config/crd/bases), fact by fact: what an existing install and its users rely on. */
const METALLB_KINDS: Readonly<Record<string, KindFacts>> = {
  IPAddressPool: {
    plural: 'ipaddresspools',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['Auto Assign', 'Avoid Buggy IPs', 'Addresses'],
  },
  L2Advertisement: {
    plural: 'l2advertisements',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['IPAddressPools', 'IPAddressPool Selectors', 'Interfaces', 'Node Selectors'],
  },
  BGPAdvertisement: {
    plural: 'bgpadvertisements',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['IPAddressPools', 'IPAddressPool Selectors', 'Peers', 'Node Selectors'],
  },
  BGPPeer: {
    plural: 'bgppeers',
    versions: ['v1beta1', 'v1beta2'],
    storage: 'v1beta2',
    columns: ['Address', 'ASN', 'BFD Profile', 'Multi Hops'],
  },
  BFDProfile: {
    plural: 'bfdprofiles',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['Passive Mode', 'Transmit Interval', 'Receive Interval', 'Multiplier'],
  },
  Community: { plural: 'communities', versions: ['v1beta1'], storage: 'v1beta1', columns: [] },
  ServiceL2Status: {
    plural: 'servicel2statuses',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['Allocated Node', 'Service Name', 'Service Namespace'],
  },
  ServiceBGPStatus: {
    plural: 'servicebgpstatuses',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['Node', 'Service Name', 'Service Namespace'],
  },
  ConfigurationState: {
    plural: 'configurationstates',
    versions: ['v1beta1'],
    storage: 'v1beta1',
    columns: ['Result', 'ErrorSummary', 'Age'],
  },
};

function errorsOf(o: K8sObject, schemas: Map<string, Schema>): string[] {
  const schema = schemas.get(`${o.apiVersion} ${o.kind}`);
  if (!schema) return [`no CRD serves ${o.apiVersion} ${o.kind}`];
  return validate(o, schema);
}

function isMetallb(o: K8sObject): boolean {
  return o.apiVersion.startsWith('metallb.io/');
}

describe.skipIf(skip !== undefined)(`the CRDs of deploy/${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let crds: Crd[];
  let schemas: Map<string, Schema>;
  beforeAll(async () => {
    crds = crdsOf(await renderDeploy());
    schemas = schemasByKind(crds);
  });

  it("define every metallb.io kind with MetalLB's names, versions, storage version, scope, status and columns", () => {
    expect(crds.map((c) => c.spec.names.kind).sort()).toEqual(Object.keys(METALLB_KINDS).sort());
    for (const crd of crds) {
      const facts = METALLB_KINDS[crd.spec.names.kind]!;
      const what = crd.spec.names.kind;
      expect(crd.metadata.name, what).toBe(`${facts.plural}.metallb.io`);
      expect(crd.spec.group, what).toBe('metallb.io');
      expect(crd.spec.scope, what).toBe('Namespaced');
      expect(crd.spec.names, what).toMatchObject({ plural: facts.plural, singular: what.toLowerCase(), listKind: `${what}List` });
      expect(crd.spec.names.shortNames, `${what}: MetalLB has none; one here could clash with another CRD's`).toBeUndefined();
      expect(
        crd.spec.versions.map((v) => v.name),
        what,
      ).toEqual(facts.versions);
      expect(
        crd.spec.versions.filter((v) => v.storage).map((v) => v.name),
        what,
      ).toEqual([facts.storage]);
      for (const version of crd.spec.versions) {
        const v = version as typeof version & { subresources?: object; additionalPrinterColumns?: { name: string }[] };
        expect(v.served, `${what} ${v.name}`).toBe(true);
        expect(v.subresources, `${what} ${v.name}`).toEqual({ status: {} });
        expect(
          (v.additionalPrinterColumns ?? []).map((c) => c.name),
          `${what} ${v.name}`,
        ).toEqual(facts.columns);
      }
    }
  });

  it('convert BGPPeer between v1beta1 and v1beta2 without a webhook (mlb ships none), v1beta1 marked deprecated', () => {
    const peer = crds.find((c) => c.spec.names.kind === 'BGPPeer')!;
    expect(peer.spec.conversion).toEqual({ strategy: 'None' });
    const v1beta1 = peer.spec.versions.find((v) => v.name === 'v1beta1') as { deprecated?: boolean };
    expect(v1beta1.deprecated).toBe(true);
    // None only relabels: every v1beta1 field must exist in v1beta2 with the same type.
    const specOf = (name: string): Schema => peer.spec.versions.find((v) => v.name === name)!.schema.openAPIV3Schema.properties!.spec!;
    const old = specOf('v1beta1').properties!;
    const current = specOf('v1beta2').properties!;
    for (const [field, schema] of Object.entries(old)) expect(current[field]?.type, `v1beta2 ${field}`).toBe(schema.type);
  });

  it('are structural in every version: a type everywhere, no properties beside additionalProperties, no preserved unknown fields', () => {
    for (const crd of crds) {
      for (const v of crd.spec.versions) {
        expect(structuralProblems(v.schema.openAPIV3Schema), `${crd.spec.names.kind} ${v.name}`).toEqual([]);
      }
    }
  });

  it('accept every metallb.io object of the examples, each in the MetalLB namespace', () => {
    const checked = exampleFiles().flatMap(({ file, objects }) =>
      objects.filter(isMetallb).map((o) => ({ where: `${file}: ${o.kind}/${o.metadata.name}`, o })),
    );
    expect(checked.length).toBeGreaterThan(10);
    for (const { where, o } of checked) {
      expect(errorsOf(o, schemas), where).toEqual([]);
      expect(o.metadata.namespace, where).toBe(INSTALL_NAMESPACE);
    }
  });

  it('accept objects that use every field of MetalLB v0.16, including the status objects MetalLB writes', () => {
    const fixture = parseObjects(readFileSync(join(REPO_ROOT, 'test/fixtures/kubernetes/metallb-shaped-objects.yaml'), 'utf8'));
    expect(new Set(fixture.map((o) => o.kind))).toEqual(new Set(Object.keys(METALLB_KINDS)));
    for (const o of fixture) expect(errorsOf(o, schemas), `${o.kind}/${o.metadata.name}`).toEqual([]);
  });

  it.each([
    ['addresses as one string', 'metallb.io/v1beta1', 'IPAddressPool', { addresses: '192.0.2.0/28' }, 'string where array is expected'],
    ['a pool without addresses', 'metallb.io/v1beta1', 'IPAddressPool', { autoAssign: true }, 'addresses is required'],
    ['a misspelt field', 'metallb.io/v1beta1', 'IPAddressPool', { adresses: ['192.0.2.0/28'], addresses: [] }, 'unknown field adresses'],
    ['an AS number above 32 bits', 'metallb.io/v1beta2', 'BGPPeer', { myASN: 4294967296 }, 'is above 4294967295'],
    ['an unknown dynamicASN', 'metallb.io/v1beta2', 'BGPPeer', { myASN: 1, dynamicASN: 'both' }, 'is not one of'],
    ['a v1beta1 peer without peerAddress', 'metallb.io/v1beta1', 'BGPPeer', { myASN: 1, peerASN: 2 }, 'peerAddress is required'],
    ['a BFD multiplier of 1', 'metallb.io/v1beta1', 'BFDProfile', { detectMultiplier: 1 }, 'is below 2'],
    ['a weight of 0', 'metallb.io/v1beta1', 'L2Advertisement', { preferredNodeSelectors: [{ weight: 0, preference: {} }] }, 'is below 1'],
    [
      'a label value that is a number',
      'metallb.io/v1beta1',
      'L2Advertisement',
      { nodeSelectors: [{ matchLabels: { a: 1 } }] },
      'integer where string is expected',
    ],
  ])('refuse %s', (_what, apiVersion, kind, spec, message) => {
    const errors = errorsOf({ apiVersion, kind, metadata: { name: 'x', namespace: INSTALL_NAMESPACE }, spec }, schemas);
    expect(errors.join('\n')).toContain(message);
  });

  it('refuse a ConfigurationState result MetalLB does not write, and a condition without its required fields', () => {
    const state = (status: object): K8sObject => ({
      apiVersion: 'metallb.io/v1beta1',
      kind: 'ConfigurationState',
      metadata: { name: 'c' },
      status,
    });
    expect(errorsOf(state({ result: 'Broken' }), schemas).join('\n')).toContain('is not one of ["Valid","Invalid","Unknown"]');
    expect(errorsOf(state({ conditions: [{ type: 'x', status: 'True' }] }), schemas).join('\n')).toContain('reason is required');
  });
});

describe("mlb's own parser", () => {
  it.each(exampleFiles().map((f) => [f.file]))('accepts %s without an error', (file) => {
    const result = parseConfig(readFileSync(join(REPO_ROOT, file), 'utf8'), file);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
