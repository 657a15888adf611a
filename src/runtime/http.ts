/**
 * HTTP through the runtime seam: a server factory (the daemon's metrics endpoint and control socket) and a
 * one-request client (the daemon's http:// health checks), so no daemon module creates a server or a socket
 * itself. The request and response shapes are the few members those modules use; the real implementation
 * (real-http-server.ts, real-http-client.ts) hands Node's own objects through them. The virtual network carries
 * no HTTP (no whole-cluster test needs it): virtual-host-io.ts throws NetworkError('notOnVirtualNetwork').
 */

/** Where a server listens: a TCP address (port 0 picks a free one), or a unix socket path. */
export type HttpBind = { readonly host: string; readonly port: number } | { readonly path: string };

/** What a server answers bytes that are not HTTP/1.1 with (a JSON error, say); the connection then closes. */
export interface HttpBadRequestReply {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface HttpServerOptions {
  /** A client slower than this to send its whole request (headers included) is cut off. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection between requests is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** How often the timeouts above are checked (they can be late by up to this much). */
  readonly timeoutCheckMs: number;
  /**
   * Open connections at most. At the cap a new one closes the oldest idle connection, and is refused only when
   * every open one is busy answering (http-connection-cap.ts); `onShed` hears of each.
   */
  readonly maxConnections: number;
  readonly onShed?: (reason: 'evictedIdle' | 'allBusy', open: number) => void;
  /** Bytes that are not HTTP/1.1: the answer (400) while the peer still listens; no answer when absent. */
  readonly badRequest?: (problem: { readonly code: string | undefined; readonly message: string }) => HttpBadRequestReply;
  /** A server error after it listens (descriptors exhausted on accept): worth a log line, never fatal. */
  readonly onError?: (error: Error) => void;
}

export interface HttpRequest {
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** Reads and discards the request body (no route reads one), so the connection stays usable. */
  resume(): void;
}

export interface HttpResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  /** Bytes written but not yet taken by the kernel: a client that stops reading makes it grow. */
  readonly writableLength: number;
  setHeader(name: string, value: string): void;
  writeHead(status: number, headers: Readonly<Record<string, string | number>>): void;
  /** Sends the headers at once (a long-lived answer whose body comes later). */
  flushHeaders(): void;
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string | Uint8Array): void;
  destroy(): void;
  /** The answer is finished or its connection is gone. */
  once(event: 'close', listener: () => void): void;
}

export interface HttpServer {
  /** Where it listens: the real port when asked for port 0; the path for a unix socket. */
  readonly bound: HttpBind;
  /** Stops accepting; resolves once every connection is closed (see closeAllConnections). */
  close(): Promise<void>;
  /** Cuts every open connection at once. */
  closeAllConnections(): void;
}

export interface HttpServerFactory {
  /** Listens on `bind`; rejects with NetworkError('bindFailed') (its cause carries the errno `code`). */
  listenHttp(bind: HttpBind, options: HttpServerOptions, onRequest: (req: HttpRequest, res: HttpResponse) => void): Promise<HttpServer>;
  /**
   * Whether something accepts connections on the unix socket `path`: 'live' (it accepts, or does not refuse
   * within `timeoutMs`), 'stale' (nothing listens: a crashed process's file), or why it cannot tell.
   */
  probeUnixSocket(path: string, timeoutMs: number): Promise<'live' | 'stale' | string>;
}

/** One GET: a fresh connection (no pooling), closed after the status line; the body is not read. */
export interface HttpGet {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface HttpClient {
  /**
   * Sends `request`; `onStatus` hears the status code, or `onError` why there is none (the error keeps Node's
   * errno `code`). Neither is called after the returned abort function ran.
   */
  get(request: HttpGet, handlers: { onStatus(status: number): void; onError(error: Error): void }): () => void;
}
