/**
 * The service behind every lab node (`mlb lab serve`, hidden): `GET /` answers the node's name, so the client sees
 * who holds a VIP; `GET /healthz` answers 200, or 503 while the node's health file says "unhealthy", which is
 * what the lab's mlb.io/health-check points at. Listening on every address ([::], dual stack) means it answers on
 * the node's own address and on any VIP the daemon binds to mlb0.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';

/** The health file's words; anything else (or no file) counts as healthy, so a fresh node serves. */
export const HEALTH_FILE_UNHEALTHY = 'unhealthy';
const HEALTH_FILE_HEALTHY = 'healthy';
/** The header naming the answering node, beside the body, for tools that read headers (curl -I). */
export const NODE_HEADER = 'x-mlb-lab-node';
/** A probe opens a connection per request; idle keep-alive connections would only pin the old owner. */
const KEEP_ALIVE_TIMEOUT_MS = 0;

export function isHealthyText(text: string | undefined): boolean {
  return text?.trim() !== HEALTH_FILE_UNHEALTHY;
}

export async function writeHealthFile(path: string, healthy: boolean): Promise<void> {
  await writeFile(path, `${healthy ? HEALTH_FILE_HEALTHY : HEALTH_FILE_UNHEALTHY}\n`);
}

export interface LabHttpServerOptions {
  readonly nodeName: string;
  /** 0 picks a free port (tests). */
  readonly port: number;
  /** '::' by default: every address, IPv4 included. */
  readonly host?: string;
  readonly healthFile: string;
}

export interface LabHttpServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startLabHttpServer(options: LabHttpServerOptions): Promise<LabHttpServer> {
  const server = createServer((req, res) => void answer(options, req, res));
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  await listen(server, options.port, options.host ?? '::');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(options: LabHttpServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  res.setHeader(NODE_HEADER, options.nodeName);
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('connection', 'close');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end('only GET\n');
    return;
  }
  if (path === '/') {
    res.writeHead(200).end(`${options.nodeName}\n`);
  } else if (path === '/healthz') {
    const healthy = isHealthyText(await readFile(options.healthFile, 'utf8').catch(() => undefined));
    res.writeHead(healthy ? 200 : 503).end(`${healthy ? 'ok' : HEALTH_FILE_UNHEALTHY}\n`);
  } else {
    res.writeHead(404).end('not found: try / or /healthz\n');
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: false }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
