/**
 * HTTP servers on Node's node:http, for the daemon's metrics endpoint and control socket: the timeouts and the
 * connection cap each caller names (http-connection-cap.ts), a 400 for bytes that are not HTTP, and the unix
 * socket liveness probe the control socket needs before it replaces a stale file.
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { capConnections } from './http-connection-cap';
import type { HttpBind, HttpServer, HttpServerFactory, HttpServerOptions } from './http';
import { NetworkError } from './network-error';

export const realHttpServers: HttpServerFactory = { listenHttp, probeUnixSocket };

function bindText(bind: HttpBind): string {
  if ('path' in bind) return bind.path;
  return bind.host.includes(':') ? `[${bind.host}]:${bind.port}` : `${bind.host}:${bind.port}`;
}

async function listenHttp(
  bind: HttpBind,
  options: HttpServerOptions,
  onRequest: Parameters<HttpServerFactory['listenHttp']>[2],
): Promise<HttpServer> {
  const server = createServer({
    requestTimeout: options.requestTimeoutMs,
    headersTimeout: options.requestTimeoutMs,
    connectionsCheckingInterval: options.timeoutCheckMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
  });
  server.on('request', onRequest);
  capConnections(server, options.maxConnections, (reason, open) => options.onShed?.(reason, open));
  const { badRequest } = options;
  if (badRequest) server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => rejectUnparsable(error, socket, badRequest));
  await listenOn(server, bind);
  server.on('error', (error: Error) => options.onError?.(error));
  const address = server.address();
  const bound: HttpBind = address !== null && typeof address === 'object' ? { host: address.address, port: address.port } : bind;
  let closing: Promise<void> | undefined;
  return {
    bound,
    close() {
      closing ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return closing;
    },
    closeAllConnections: () => server.closeAllConnections(),
  };
}

function listenOn(server: Server, bind: HttpBind): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void =>
      reject(new NetworkError('bindFailed', `cannot listen on ${bindText(bind)}: ${error.message}`, { cause: error }));
    server.once('error', failed);
    const done = (): void => {
      server.off('error', failed);
      resolve();
    };
    if ('path' in bind) server.listen({ path: bind.path }, done);
    else server.listen(bind.port, bind.host, done);
  });
}

/** One 400 if the peer still listens, then close; a reset peer is simply dropped. */
function rejectUnparsable(error: NodeJS.ErrnoException, socket: Socket, badRequest: NonNullable<HttpServerOptions['badRequest']>): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const reply = badRequest({ code: error.code, message: error.message });
  const headers = Object.entries({ ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 400 Bad Request\r\n${headers}\r\n${reply.body}`);
}

function probeUnixSocket(path: string, timeoutMs: number): Promise<'live' | 'stale' | string> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    const finish = (result: string): void => {
      socket.destroy();
      resolve(result);
    };
    // A socket option, not a timer of the caller's: a listener that neither accepts nor refuses counts as live.
    socket.setTimeout(timeoutMs, () => finish('live'));
    socket.once('connect', () => finish('live'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'stale' : `${error.code ?? ''} ${error.message}`.trim()),
    );
  });
}
