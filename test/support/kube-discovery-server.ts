/**
 * A discovery-only Kubernetes API server for kubectl's client-side commands. `kubectl apply --dry-run=client`
 * still needs the server: it maps each kind to a resource through API discovery (GET /api, /apis, then the
 * legacy per-version documents /api/v1 and /apis/GROUP/VERSION when the aggregated v2 form is not offered) and
 * GETs each object to decide between create and patch. This server answers discovery for the resources it is
 * given, 404 NotFound for every object (so everything is "created (dry run)"), and 405 for any write, which a
 * client-side dry run must never send. It records every request so a test can say so.
 *
 * Not a fake API server: no storage, no watches. test/support/fake-apiserver/ is that, when it exists.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DiscoveredResource {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The plural resource name in URLs, e.g. ipaddresspools. */
  readonly plural: string;
  readonly namespaced: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
}

export interface DiscoveryServer {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Writes a kubeconfig for this server into `dir` and returns its path. */
  kubeconfigPath(dir: string): string;
  close(): Promise<void>;
}

/** The version kubectl reads from /version; any recent one, kubectl only warns about a skew. */
const SERVER_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' };
const ALL_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

function groupVersion(r: DiscoveredResource): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

function status(code: number, reason: string, message: string): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function send(res: ServerResponse, code: number, body: object): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function resourceList(resources: readonly DiscoveredResource[], gv: string): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv,
    resources: resources
      .filter((r) => groupVersion(r) === gv)
      .map((r) => ({
        name: r.plural,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ALL_VERBS,
      })),
  };
}

function groupList(resources: readonly DiscoveredResource[]): object {
  const versionsByGroup = new Map<string, string[]>();
  for (const r of resources) {
    if (r.group === '') continue;
    const versions = versionsByGroup.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    versionsByGroup.set(r.group, versions);
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...versionsByGroup].map(([name, versions]) => {
      const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
      // The last listed version is preferred: for metallb.io that is v1beta2 (BGPPeer's storage version).
      return { name, versions: entries, preferredVersion: entries[entries.length - 1] };
    }),
  };
}

function answer(resources: readonly DiscoveredResource[], req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/$/, '');
  if (req.method !== 'GET') {
    send(res, 405, status(405, 'MethodNotAllowed', `${req.method} ${path}: this server answers discovery only`));
    return;
  }
  if (path === '/version') return send(res, 200, SERVER_VERSION);
  if (path === '/api') return send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
  if (path === '/apis') return send(res, 200, groupList(resources));
  const legacy = /^\/api\/(v1)$/.exec(path);
  if (legacy) return send(res, 200, resourceList(resources, 'v1'));
  const grouped = /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
  if (grouped) {
    const gv = `${grouped[1]}/${grouped[2]}`;
    if (resources.some((r) => groupVersion(r) === gv)) return send(res, 200, resourceList(resources, gv));
  }
  send(res, 404, status(404, 'NotFound', `${path} not found`));
}

export async function startDiscoveryServer(resources: readonly DiscoveredResource[]): Promise<DiscoveryServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '' });
    answer(resources, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    kubeconfigPath(dir: string): string {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, 'kubeconfig');
      writeFileSync(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          '  - name: discovery',
          '    cluster:',
          `      server: ${url}`,
          'users:',
          '  - name: tester',
          '    user:',
          '      token: discovery-only',
          'contexts:',
          '  - name: discovery',
          '    context: {cluster: discovery, user: tester}',
          'current-context: discovery',
          '',
        ].join('\n'),
      );
      return path;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
