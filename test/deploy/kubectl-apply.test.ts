/**
 * `kubectl apply --dry-run=client --validate=false` accepts the install and the cluster examples. A client-side dry
 * run still needs an API server: kubectl maps every kind to a resource through API discovery and GETs every
 * object to choose between create and patch (`unable to recognize ... connection refused` without one). The
 * test starts the fake API server (test/support/fake-apiserver) serving only the built-in kinds the install uses
 * plus, for the examples, the resources the rendered CRDs define, and holding no object of them (so everything is
 * "created (dry run)"), so a kind or apiVersion those CRDs do not serve fails as it would on a
 * cluster ("no matches for kind"). --validate=false because validation needs the server's OpenAPI documents;
 * test/deploy/crd-schemas.test.ts validates the metallb.io objects against the CRD schemas instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_IN_RESOURCES, crdResources, crdsOf, exampleFiles, kubectl, kubectlMissing, renderDeploy } from '../support/deploy-manifests';
import { type FakeApiServer, type ServedResource, servedTypes, startFakeApiServer } from '../support/fake-apiserver';

const skip = kubectlMissing();

/** The resource kubectl prints for an object: "kind.group/name", the group left out for core kinds. */
function printedName(apiVersion: string, kind: string, name: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return `${kind.toLowerCase()}${group ? `.${group}` : ''}/${name}`;
}

describe.skipIf(skip !== undefined)(`kubectl apply --dry-run=client${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let server: FakeApiServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    server = undefined;
    dir = undefined;
  });

  /** kubectl against a fake API server of exactly these kinds, with a private HOME and cache (kubectl caches discovery there). */
  async function applyDryRun(resources: readonly ServedResource[], source: string[]): Promise<string> {
    server = await startFakeApiServer({ resourceTypes: servedTypes(resources) });
    dir = mkdtempSync(join(tmpdir(), 'mlb-deploy-kubectl-'));
    const kubeconfig = server.kubeconfigPath(dir);
    const { stdout } = await kubectl(['apply', '--dry-run=client', '--validate=false', '--cache-dir', join(dir, 'cache'), ...source], {
      KUBECONFIG: kubeconfig,
      HOME: dir,
    });
    return stdout;
  }

  it('accepts every object of deploy/ and sends the server nothing but reads', async () => {
    const objects = await renderDeploy();
    const stdout = await applyDryRun(BUILT_IN_RESOURCES, ['-k', 'deploy/']);
    const lines = stdout.trim().split('\n');
    const expected = objects.map((o) => `${printedName(o.apiVersion, o.kind, o.metadata.name!)} created (dry run)`);
    expect(lines.sort()).toEqual(expected.sort());
    expect(server!.audit.count({ method: 'GET' })).toBeGreaterThan(0);
    expect(server!.audit.entries.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('accepts the cluster examples once the CRDs of deploy/ are installed', async () => {
    const crds = crdsOf(await renderDeploy());
    const files = exampleFiles().filter((f) => f.file.startsWith('examples/kubernetes/'));
    expect(files.length).toBeGreaterThan(0);
    const stdout = await applyDryRun(
      [...BUILT_IN_RESOURCES, ...crdResources(crds)],
      files.flatMap((f) => ['-f', f.file]),
    );
    const expected = files.flatMap((f) => f.objects.map((o) => `${printedName(o.apiVersion, o.kind, o.metadata.name!)} created (dry run)`));
    expect(stdout.trim().split('\n').sort()).toEqual(expected.sort());
  });

  it('refuses an object whose apiVersion the CRDs do not serve (what a typo in a user file meets)', async () => {
    const crds = crdsOf(await renderDeploy());
    const wrongDir = mkdtempSync(join(tmpdir(), 'mlb-deploy-wrong-'));
    const wrong = join(wrongDir, 'pool.yaml');
    writeFileSync(
      wrong,
      'apiVersion: metallb.io/v1\nkind: IPAddressPool\nmetadata: {name: x, namespace: metallb-system}\nspec: {addresses: [192.0.2.0/30]}\n',
    );
    try {
      await expect(applyDryRun([...BUILT_IN_RESOURCES, ...crdResources(crds)], ['-f', wrong])).rejects.toThrow(
        /no matches for kind "IPAddressPool" in version "metallb.io\/v1"/,
      );
    } finally {
      rmSync(wrongDir, { recursive: true, force: true });
    }
  });
});
