/**
 * The daemon's control API: HTTP/1.1 over a unix socket, the one interface `mlb status`, `mlb explain --socket`,
 * `mlb drain` and the `mlb status` TUI talk to (docs/architecture.md convention 10). A unix socket, not TCP:
 * nothing leaves the host, and the file's owner, group and mode (0660) decide who may drain this node.
 *
 * The shell only: routing is control-routes.ts (pure), the data comes from a ControlProvider the speaker
 * implements. A bad request gets a JSON error and never takes the daemon down. Every route answers once and
 * closes its answer, except /v1/events, which stays open (event-stream.ts).
 */
import { chmod, chown, lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Explanation } from '../../election';
import type { Logger } from '../logger';
import type { HttpRequest, HttpResponse, HttpServer, HttpServerFactory } from '../../runtime/http';
import { realHttpServers } from '../../runtime/real-http-server';
import { REAL_BACKGROUND_RUNTIME } from '../../runtime/real-runtime';
import type { Scheduler, Timer } from '../../runtime/runtime';
import { resolveSocketGroup } from './socket-group';
import { CONTROL_API_HEADER, CONTROL_API_VERSION, type ControlSnapshot, type ControlStatus } from './control-snapshot';
import { pageOfSnapshot, type SnapshotPage } from './snapshot-page';
import { ControlErrorCode, ControlSocketError, errorBody } from './control-errors';
import { routeRequest, type Route } from './control-routes';
import { filterExplanations } from './explain-filter';
import { EventStream, type EventSource } from './event-stream';
import type { DaemonEvent } from '../daemon-events';
import { DrainRecordError } from '../drain-record';
import { RemoteDrainError } from '../remote-drain/remote-drain-error';

/** What `mlb drain` and `mlb undrain` get back. */
export interface DrainResult {
  /** false when the node already was in the asked state. */
  readonly changed: boolean;
  /** One line for the person who asked ("node-a is draining: its IPs move to ..."). */
  readonly message: string;
  /**
   * `mlb drain NODE` for another node: the request gossiped, to wait for in that member's `drain` in the
   * snapshot (the target answers it applied or failed).
   */
  readonly request?: { readonly target: string; readonly action: 'drain' | 'undrain'; readonly requestedBy: string; readonly seq: number };
}

/**
 * What the daemon exposes; the speaker implements it (the server never reaches into daemon state itself). The
 * event methods (EventSource: eventsSince, subscribeEvents) feed GET /v1/events.
 */
export interface ControlProvider extends EventSource {
  /** The whole snapshot, or (page given) one that may hold only those services (snapshot-page.ts). */
  snapshot(page?: SnapshotPage): ControlSnapshot;
  /**
   * GET /v1/status: the snapshot without candidates and `local`, built without them. A provider without it
   * answers with its whole snapshot, which is a status too.
   */
  status?(): ControlStatus;
  explain(): Explanation[];
  /**
   * This node (no `node`, or its own name), or another member through gossip. Rejects with DrainRecordError when
   * the change cannot be recorded (and so was not made), with RemoteDrainError when another node cannot be asked.
   */
  drain(node?: string): Promise<DrainResult>;
  undrain(node?: string): Promise<DrainResult>;
  /** `mlb warmup end`: ends this node's warm-up now (changed: false when it was not warming up). */
  endWarmUp(): Promise<DrainResult>;
}

export interface ControlServerOptions {
  readonly path: string;
  readonly provider: ControlProvider;
  readonly logger: Logger;
  /** The group (name or gid) the socket is given, so its members may use it without root; the daemon's own if unset. */
  readonly group?: string;
  /** Where the server comes from (real sockets by default). */
  readonly http?: HttpServerFactory;
  /** The timer of close()'s grace for open event streams (real, not keeping the process alive, by default). */
  readonly scheduler?: Scheduler;
}

/** rw for the owner (root) and the socket's group, nothing for others: draining a node is an admin's act. */
export const CONTROL_SOCKET_MODE = 0o660;
/** A local client sends its request at once; one slower than this is stuck or hostile and holds a descriptor. */
const CONTROL_REQUEST_TIMEOUT_MS = 10_000;
/**
 * A handful of operators and one TUI each; a runaway script cannot use up the daemon's descriptors. At the cap a
 * new connection closes the oldest idle one (http-connection-cap.ts): idle connections never lock `mlb status`
 * out, as they did when Node's maxConnections refused every newcomer (the client then saw `write EPIPE`).
 */
export const CONTROL_MAX_CONNECTIONS = 64;
/**
 * Open /v1/events streams (one per running TUI). Each stays busy for as long as it lasts, so they are capped at
 * half the connections: the other half is always room for one-shot requests (`mlb status --once`, explain,
 * drain). A stream past the cap gets 503 tooManyStreams; the TUI still re-reads the snapshot every second.
 */
export const CONTROL_MAX_EVENT_STREAMS = CONTROL_MAX_CONNECTIONS / 2;
/**
 * How often Node checks the request timeout. Its default (30 s) let a silent connection live up to 40 s; once a
 * second keeps CONTROL_REQUEST_TIMEOUT_MS what it says.
 */
const CONTROL_TIMEOUT_CHECK_MS = 1_000;
/** A keep-alive connection between requests: the CLI opens one per call, so anything longer is waste. */
const CONTROL_KEEP_ALIVE_MS = 5_000;
/** On close, how long open event streams get to deliver their last bytes before their connections are cut. */
const STREAM_END_GRACE_MS = 200;
/** How long the stale-socket check waits for a live daemon to accept; a local accept takes microseconds. */
const LIVE_PROBE_TIMEOUT_MS = 1_000;
/** The directory holding the socket when mlb must create it (systemd's RuntimeDirectory= normally does). */
const SOCKET_DIR_MODE = 0o755;

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly allow?: readonly string[];
}

export class ControlServer {
  private closed = false;
  /** Open /v1/events answers: close() ends them cleanly before cutting connections. */
  private readonly streams = new Set<EventStream>();

  private constructor(
    readonly path: string,
    private readonly logger: Logger,
    private readonly scheduler: Scheduler,
  ) {}

  /** Set once listening (listen() builds the server around this object's request handler). */
  private server!: HttpServer;

  /**
   * Listens on `path` (mode 0660), replacing a stale socket a crashed daemon left; refuses a live one with a
   * ControlSocketError. Logs nothing on success: the caller says where the API listens.
   */
  static async listen(options: ControlServerOptions): Promise<ControlServer> {
    const { path, logger } = options;
    // Before anything exists on disk: an unknown group is a configuration error, said at once.
    const gid = options.group === undefined ? undefined : await resolveSocketGroup(options.group);
    const http = options.http ?? realHttpServers;
    await removeStaleSocket(path, http);
    await mkdir(dirname(path), { recursive: true, mode: SOCKET_DIR_MODE }).catch((error: Error) => {
      throw new ControlSocketError(`cannot create the directory of the control socket ${path}: ${error.message}`, 'controlSocketUnusable');
    });
    const control = new ControlServer(path, logger, options.scheduler ?? REAL_BACKGROUND_RUNTIME);
    const serverOptions = {
      requestTimeoutMs: CONTROL_REQUEST_TIMEOUT_MS,
      timeoutCheckMs: CONTROL_TIMEOUT_CHECK_MS,
      keepAliveTimeoutMs: CONTROL_KEEP_ALIVE_MS,
      maxConnections: CONTROL_MAX_CONNECTIONS,
      onShed: (reason: 'evictedIdle' | 'allBusy', open: number) =>
        logger.debug(
          { event: 'controlConnectionShed', reason, open },
          reason === 'evictedIdle'
            ? 'closed an idle control connection to make room'
            : 'refused a control connection: every open one is busy',
        ),
      badRequest: (problem: { code: string | undefined; message: string }) => control.unparsableReply(problem),
      onError: (error: Error) => logger.error({ event: 'controlServerError', err: error.message }, 'control socket failed'),
    };
    control.server = await http
      .listenHttp({ path }, serverOptions, (req, res) => control.handle(req, res, options.provider))
      .catch((error: Error) => {
        throw listenError(error, path);
      });
    try {
      await chmod(path, CONTROL_SOCKET_MODE);
    } catch (error) {
      await control.close();
      throw new ControlSocketError(
        `cannot set mode 0660 on the control socket ${path}: ${(error as Error).message}`,
        'controlSocketUnusable',
      );
    }
    if (gid !== undefined) {
      try {
        await chown(path, -1, gid);
      } catch (error) {
        await control.close();
        throw new ControlSocketError(
          `cannot give the control socket ${path} to group ${options.group}: ${(error as Error).message}`,
          'controlSocketUnusable',
        );
      }
    }
    return control;
  }

  /** Stops accepting, ends open event streams cleanly, cuts the other connections and removes the socket file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const done = this.server.close();
    await this.endStreams();
    this.server.closeAllConnections();
    await done;
    await unlink(this.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT')
        this.logger.warn({ event: 'controlSocketLeft', path: this.path, err: error.message }, 'could not remove the control socket');
    });
  }

  private handle(req: HttpRequest, res: HttpResponse, provider: ControlProvider): void {
    // No route reads a body: drain it so the connection stays usable, and answer on the route alone.
    req.resume();
    const route = routeRequest(req.method ?? '', req.url ?? '');
    if (route.kind === 'events') {
      this.openEventStream(req, res, provider, route.after);
      return;
    }
    void answer(route, provider).then(
      (reply) => this.send(req, res, reply),
      (error: unknown) => {
        this.logger.error({ event: 'controlRequestFailed', path: req.url, err: errorText(error) }, 'control request failed');
        this.send(req, res, {
          status: 500,
          body: errorBody(ControlErrorCode.internal, `the daemon failed answering: ${errorText(error)}`),
        });
      },
    );
  }

  private send(req: HttpRequest, res: HttpResponse, reply: Reply): void {
    let text: string;
    let status = reply.status;
    try {
      text = `${encodeBody(reply.body)}\n`;
    } catch (error) {
      status = 500;
      text = `${JSON.stringify(errorBody(ControlErrorCode.internal, `cannot encode the answer: ${errorText(error)}`))}\n`;
    }
    this.logger.debug({ event: 'controlRequest', method: req.method, path: req.url, status }, 'control request');
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      [CONTROL_API_HEADER]: CONTROL_API_VERSION,
      ...(reply.allow ? { allow: reply.allow.join(', ') } : {}),
    });
    res.end(text);
  }

  private openEventStream(req: HttpRequest, res: HttpResponse, provider: ControlProvider, after: number): void {
    let replay: DaemonEvent[];
    try {
      replay = provider.eventsSince(after);
    } catch (error) {
      this.logger.error({ event: 'controlRequestFailed', path: req.url, err: errorText(error) }, 'control request failed');
      this.send(req, res, { status: 500, body: errorBody(ControlErrorCode.internal, `the daemon failed answering: ${errorText(error)}`) });
      return;
    }
    if (this.closed) {
      res.destroy();
      return;
    }
    if (this.streams.size >= CONTROL_MAX_EVENT_STREAMS) {
      this.logger.debug({ event: 'controlStreamRefused', open: this.streams.size }, 'event stream refused: too many open');
      const message = `the daemon already serves ${this.streams.size} event streams (its limit); close another mlb status, or use mlb status --once`;
      this.send(req, res, { status: 503, body: errorBody(ControlErrorCode.tooManyStreams, message) });
      return;
    }
    const stream = new EventStream(res, provider, after, replay, this.logger, undefined, this.scheduler);
    this.streams.add(stream);
    this.logger.debug({ event: 'controlStreamOpened', after, replayed: replay.length }, 'event stream opened');
    res.once('close', () => {
      this.streams.delete(stream);
      this.logger.debug({ event: 'controlStreamClosed' }, 'event stream closed');
    });
  }

  /** Ends every open stream and waits (briefly) for their connections to close, so clients read a clean end. */
  private async endStreams(): Promise<void> {
    if (this.streams.size === 0) return;
    const closed = [...this.streams].map((stream) => {
      stream.end();
      return stream.closed;
    });
    let timer: Timer | undefined;
    const grace = new Promise<void>((resolve) => (timer = this.scheduler.after(STREAM_END_GRACE_MS, resolve)));
    await Promise.race([Promise.all(closed), grace]);
    timer?.cancel();
  }

  /** Bytes that are not HTTP/1.1 (or a request too slow): the JSON 400 the server sends if the peer still listens. */
  private unparsableReply(problem: { readonly code: string | undefined; readonly message: string }): {
    headers: Record<string, string>;
    body: string;
  } {
    this.logger.debug({ event: 'controlBadRequest', err: problem.message, code: problem.code }, 'unparsable control request');
    const body = `${JSON.stringify(errorBody(ControlErrorCode.badRequest, `not an HTTP/1.1 request (${problem.code ?? problem.message})`))}\n`;
    return { headers: { 'content-type': 'application/json; charset=utf-8', [CONTROL_API_HEADER]: CONTROL_API_VERSION }, body };
  }
}

/** Runs a one-shot route against the provider; provider failures become the caller's 500. */
async function answer(route: Exclude<Route, { kind: 'events' }>, provider: ControlProvider): Promise<Reply> {
  switch (route.kind) {
    case 'snapshot':
      return { status: 200, body: route.page ? pageOfSnapshot(provider.snapshot(route.page), route.page) : provider.snapshot() };
    case 'status':
      return { status: 200, body: provider.status ? provider.status() : provider.snapshot() };
    case 'explain':
      return { status: 200, body: filterExplanations(provider.explain(), route.filter) };
    case 'drain':
      return drainReply(() => provider.drain(route.node));
    case 'undrain':
      return drainReply(() => provider.undrain(route.node));
    case 'endWarmUp':
      return { status: 200, body: await provider.endWarmUp() };
    case 'error':
      return { status: route.status, body: errorBody(route.code, route.message), ...(route.allow ? { allow: route.allow } : {}) };
  }
}

/** A drain or undrain that could not be recorded changed nothing: the caller gets why, under its own code. */
async function drainReply(change: () => Promise<DrainResult>): Promise<Reply> {
  try {
    return { status: 200, body: await change() };
  } catch (error) {
    if (error instanceof DrainRecordError) return { status: 500, body: errorBody(ControlErrorCode.drainNotRecorded, error.message) };
    if (error instanceof RemoteDrainError)
      return { status: error.code === 'remoteDrainNeedsKey' ? 403 : 400, body: errorBody(ControlErrorCode[error.code], error.message) };
    throw error;
  }
}

/**
 * A socket file left at `path` is either a crashed daemon's (nobody accepts: remove it) or a live daemon's
 * (refuse to start: two daemons on one host would fight over the same IPs). Anything else is not ours to delete.
 */
async function removeStaleSocket(path: string, http: HttpServerFactory): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ControlSocketError(`cannot inspect the control socket path ${path}: ${(error as Error).message}`, 'controlSocketUnusable');
  }
  if (!isSocket) {
    throw new ControlSocketError(
      `${path} exists and is not a socket; move it away or choose another --control-socket`,
      'controlSocketPathTaken',
    );
  }
  const probe = await http.probeUnixSocket(path, LIVE_PROBE_TIMEOUT_MS);
  if (probe === 'live') {
    throw new ControlSocketError(
      `another process answers on ${path}: is a second mlb daemon running on this host? Stop it, or give this one another --control-socket`,
      'controlSocketInUse',
    );
  }
  if (probe !== 'stale') {
    throw new ControlSocketError(`cannot tell whether ${path} is in use: ${probe}`, 'controlSocketUnusable');
  }
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT')
      throw new ControlSocketError(`cannot remove the stale control socket ${path}: ${error.message}`, 'controlSocketUnusable');
  });
}

/** The server's bind failure as the control socket's error: EADDRINUSE means another process took the path. */
function listenError(error: Error, path: string): ControlSocketError {
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return cause?.code === 'EADDRINUSE'
    ? new ControlSocketError(`${path} was taken while mlb started (a second daemon?)`, 'controlSocketInUse')
    : new ControlSocketError(`cannot listen on the control socket ${path}: ${cause?.message ?? error.message}`, 'controlSocketUnusable');
}

/**
 * The answer's JSON. Without a replacer first: a replacer is a call per value, which doubles the time of a
 * 10,000-service answer, and answers carry no bigint. One that does (JSON.stringify throws on it) is encoded again
 * with bigints as text, so a bigint never turns into a 500 for the user.
 */
function encodeBody(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    if (!(error instanceof TypeError && /BigInt/i.test(error.message))) throw error;
    return JSON.stringify(body, bigintAsText);
  }
}

function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
