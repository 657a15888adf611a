/**
 * The HTTP shell: node:http on a real socket, so kubectl (another process) and client-node (node-fetch) talk to it
 * as to a cluster. Per request: read the body, authenticate the bearer token, route, authorize with RBAC, apply an
 * injected fault, answer (a Status body for every failure), and record the outcome in the audit log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, statusBody } from './api-error';
import type { AuditLog } from './audit';
import { authenticate } from './credentials';
import { apiGroup, coreVersions, groupList, resourceList, versionDocument } from './discovery';
import type { Faults, OutageMode } from './faults';
import { filterOf, handleResource, type HandlerContext } from './resource-handlers';
import { forbidden, isAllowed, type RbacPolicy, type RequestAttributes, type UserInfo } from './rbac';
import { routeRequest, type Route } from './request-route';
import type { ResourceCatalog } from './resource-catalog';
import { selectedName } from './selectors';
import { wantsTable } from './table';

/** Loopback only: the fake is for tests on this machine and must never be reachable from elsewhere. */
export const LISTEN_HOST = '127.0.0.1';

export interface ShellOptions {
  catalog: ResourceCatalog;
  context: HandlerContext;
  audit: AuditLog;
  rbac?: RbacPolicy;
  faults: () => Faults;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, code: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function nonResource(catalog: ResourceCatalog, path: string, serverAddress: string): { code: number; body: unknown } {
  const parts = path.split('/').filter((part) => part !== '');
  if (path === '/version') return { code: 200, body: versionDocument() };
  if (path === '/api') return { code: 200, body: coreVersions(serverAddress) };
  if (path === '/apis') return { code: 200, body: groupList(catalog) };
  const found =
    parts[0] === 'api' && parts.length === 2
      ? resourceList(catalog, '', parts[1] ?? '')
      : parts[0] === 'apis' && parts.length === 2
        ? apiGroup(catalog, parts[1] ?? '')
        : parts[0] === 'apis' && parts.length === 3
          ? resourceList(catalog, parts[1] ?? '', parts[2] ?? '')
          : undefined;
  if (found !== undefined) return { code: 200, body: found };
  // /openapi/v2 and /v3 are absent: kubectl's validation needs them, so tests pass --validate=false.
  throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

function attributesOf(route: Route, query: URLSearchParams): RequestAttributes | undefined {
  if (route.kind !== 'resource') return undefined;
  const attributes: RequestAttributes = { verb: route.verb, apiGroup: route.group, resource: route.type.plural };
  if (route.subresource !== undefined) attributes.subresource = route.subresource;
  if (route.namespace !== undefined) attributes.namespace = route.namespace;
  // A Namespace object is authorized as a request in that namespace (RequestInfoFactory does the same).
  if (route.type.group === '' && route.type.plural === 'namespaces' && route.name !== undefined) attributes.namespace = route.name;
  let name = route.name;
  if (name === undefined && (route.verb === 'list' || route.verb === 'watch')) {
    try {
      name = selectedName(filterOf(route.type, query).fields);
    } catch {
      name = undefined;
    }
  }
  if (name !== undefined) attributes.name = name;
  return attributes;
}

/** The fieldManager the apiserver derives from a User-Agent (`kubectl/v1.32.4 (...)` -> `kubectl`). */
function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? 'unknown').split('/')[0] || 'unknown';
}

export class HttpShell {
  readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private outage: OutageMode | undefined;
  private port = 0;

  constructor(private readonly options: ShellOptions) {
    this.server = createServer((request, response) => {
      void this.handle(request, response);
    });
    this.server.on('connection', (socket) => {
      if (this.outage === 'reset') {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, LISTEN_HOST, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('fake apiserver: no TCP address');
    this.port = address.port;
    return `http://${LISTEN_HOST}:${this.port}`;
  }

  private destroySockets(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  async startOutage(mode: OutageMode): Promise<void> {
    this.outage = mode;
    this.destroySockets();
    if (mode === 'refuse') await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async endOutage(): Promise<void> {
    const mode = this.outage;
    this.outage = undefined;
    if (mode === 'refuse') await this.listen();
  }

  async close(): Promise<void> {
    this.destroySockets();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', `http://${LISTEN_HOST}`);
    const method = request.method ?? 'GET';
    let user: UserInfo = { name: 'unknown', groups: [] };
    let route: Route | undefined;
    const record = (code: number, reason?: string): void => {
      const entry = {
        method,
        path: url.pathname,
        query: url.search,
        verb: route?.verb ?? method.toLowerCase(),
        subject: user.name,
        code,
        ...(reason !== undefined ? { reason } : {}),
        ...(route?.kind === 'resource'
          ? {
              apiGroup: route.group,
              resource: route.type.plural,
              ...(route.subresource !== undefined ? { subresource: route.subresource } : {}),
              ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
              ...(route.name !== undefined ? { name: route.name } : {}),
            }
          : {}),
      };
      this.options.audit.record(entry);
    };
    try {
      const body = await readBody(request);
      const impersonate = request.headers['impersonate-user'];
      const authenticated = authenticate(request.headers.authorization, Array.isArray(impersonate) ? impersonate[0] : impersonate);
      if (!authenticated) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
      user = authenticated;
      if (url.pathname === '/healthz' || url.pathname === '/livez' || url.pathname === '/readyz') {
        response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
        record(200);
        return;
      }
      route = routeRequest(method, url, this.options.catalog);
      const attributes = attributesOf(route, url.searchParams);
      if (attributes && this.options.rbac && !isAllowed(this.options.rbac, user, attributes)) throw forbidden(user, attributes);
      const injected = this.options.faults().failureFor(method, url.pathname);
      if (injected) throw injected;
      await this.options.faults().waitForDelay();
      if (route.kind === 'nonresource') {
        const { code, body: answer } = nonResource(this.options.catalog, url.pathname, `${LISTEN_HOST}:${this.port}`);
        sendJson(response, code, answer);
        record(code);
        return;
      }
      const result = handleResource(
        this.options.context,
        {
          route,
          query: url.searchParams,
          contentType: request.headers['content-type'],
          body,
          table: wantsTable(request.headers.accept),
          defaultManager: managerFromUserAgent(request.headers['user-agent']),
        },
        response,
      );
      if ('streaming' in result) record(200);
      else {
        sendJson(response, result.code, result.body);
        record(result.code);
      }
    } catch (error) {
      const apiError =
        error instanceof ApiError ? error : new ApiError(500, 'InternalError', `fake apiserver: ${(error as Error).message}`);
      sendJson(response, apiError.code, statusBody(apiError));
      record(apiError.code, apiError.reason);
    }
  }
}
