/**
 * The one client of the daemon's control API (src/daemon/control): every command that talks to a running daemon
 * goes through it, so each failure reads the same everywhere and says what to do: no daemon, no permission,
 * something else on the socket, or a daemon of another API version. Each call is one HTTP/1.1 request over the
 * unix socket; nothing is kept open between calls, except by followEvents, whose answer is the live event stream.
 */
import { request, type IncomingMessage } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import type { Explanation } from '../election';
import {
  CONTROL_API_HEADER,
  CONTROL_API_VERSION,
  isControlSnapshot,
  isControlStatus,
  type ControlSnapshot,
  type ControlStatus,
} from '../daemon/control/control-snapshot';
import { ControlErrorCode, isControlErrorBody } from '../daemon/control/control-errors';
import { collectPages } from '../daemon/control/snapshot-page';
import { ControlPath } from '../daemon/control/control-routes';
import { EVERY_EXPLANATION, explainQuery, type ExplainFilter } from '../daemon/control/explain-filter';
import type { DrainResult } from '../daemon/control/control-server';
import { EventLineDecoder } from '../daemon/control/event-lines';
import { EVENT_STREAM_HEARTBEAT_MS } from '../daemon/control/event-stream';
import { findGroupName, GROUP_FILE } from '../daemon/control/socket-group';
import type { DaemonEvent } from '../daemon/daemon-events';
import { CommandError } from './exit-codes';

/**
 * Where the daemon listens unless told otherwise: the systemd unit sets RuntimeDirectory=mlb, so /run/mlb exists,
 * belongs to the daemon and disappears with it; a socket there cannot outlive a stopped service.
 */
export const DEFAULT_CONTROL_SOCKET = '/run/mlb/mlb.sock';
/** The daemon answers reads from memory; five seconds without an answer means it is stuck, not busy. */
const CONTROL_READ_TIMEOUT_MS = 5_000;
/** A drain publishes the new flag in gossip and may wait for it to spread; give it longer than a read. */
const CONTROL_DRAIN_TIMEOUT_MS = 30_000;
/** Far above a snapshot of thousands of services; anything bigger is not an mlb daemon talking. */
const CONTROL_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** An event stream silent for three heartbeats means a hung daemon (or a lost connection), not a quiet one. */
const EVENT_STREAM_IDLE_TIMEOUT_MS = 3 * EVENT_STREAM_HEARTBEAT_MS;

export type ControlClientErrorCode =
  /** No file at the socket path: the daemon is not running, or listens elsewhere. */
  | 'controlSocketMissing'
  /** A socket file, but nothing accepts on it (a daemon that crashed left it behind). */
  | 'controlNotListening'
  /** The socket's mode (0660) keeps this user out. */
  | 'controlPermissionDenied'
  /** Something answers, but not mlb's control API (or the path is not a socket). */
  | 'notMlbSocket'
  /** An mlb daemon speaking another API version. */
  | 'controlVersionMismatch'
  /** The daemon accepted the request and did not answer in time. */
  | 'controlTimeout'
  /** The daemon answered with an error body; daemonCode has its code. */
  | 'controlDaemonError'
  /** The event stream broke off (the daemon died or cut a client that stopped reading). */
  | 'controlStreamBroken'
  /** Any other failure to reach the socket. */
  | 'controlConnectionFailed';

/** A failure talking to the daemon: main prints the message and exits 1. */
export class ControlClientError extends CommandError {
  constructor(
    message: string,
    override readonly code: ControlClientErrorCode,
    /** controlDaemonError only: the daemon's own error code (notFound, badRequest, internal...). */
    readonly daemonCode?: string,
  ) {
    super(message, code);
    this.name = 'ControlClientError';
  }
}

export interface ControlClient {
  readonly socketPath: string;
  getSnapshot(): Promise<ControlSnapshot>;
  /** What `mlb status --once` prints (GET /v1/status, one answer); a daemon from before it gives its snapshot. */
  getStatus(): Promise<ControlStatus>;
  /** The daemon's explanations, all of them or those the filter names. */
  getExplain(filter?: Partial<ExplainFilter>): Promise<Explanation[]>;
  /** This node, or `node` through gossip (the answer then names the request to wait for). */
  drain(node?: string): Promise<DrainResult>;
  undrain(node?: string): Promise<DrainResult>;
  /** `mlb warmup end`: {changed, message} as for a drain. */
  endWarmUp(): Promise<DrainResult>;
  /**
   * Follows the daemon's events: those after sequence number `after` it still holds (0: all of them), then live
   * ones, each passed to onEvent in order. Resolves when the daemon ends the stream or `signal` aborts it; rejects
   * with a ControlClientError when it cannot be opened, breaks off, or stays silent past
   * EVENT_STREAM_IDLE_TIMEOUT_MS. Reconnecting (with the last seq seen) is the caller's choice.
   */
  followEvents(after: number, onEvent: (event: DaemonEvent) => void, signal: AbortSignal): Promise<void>;
}

/** A client for the daemon at `socketPath`; connections are made per call, so this never fails by itself. */
export function connectControl(socketPath: string = DEFAULT_CONTROL_SOCKET): ControlClient {
  const call = (method: 'GET' | 'POST', path: string, timeoutMs: number) => callDaemon(socketPath, method, path, timeoutMs);
  const getSnapshot = async (): Promise<ControlSnapshot> => {
    const read = async (path: string): Promise<ControlSnapshot> => {
      const body = await call('GET', path, CONTROL_READ_TIMEOUT_MS);
      if (!isControlSnapshot(body)) {
        const version = (body as { apiVersion?: unknown } | null)?.apiVersion;
        if (typeof version === 'string' && version !== CONTROL_API_VERSION) throw versionMismatch(socketPath, version);
        throw notMlb(socketPath, 'its snapshot is not an mlb.io/v1 snapshot');
      }
      return body;
    };
    // In pages (snapshot-page.ts): each answer stays small however many services the daemon holds. A daemon
    // from before pages refuses the query (badRequest) and is asked for the whole snapshot instead.
    try {
      return await collectPages((page) => read(`${ControlPath.snapshot}?offset=${page.offset}&limit=${page.limit}`));
    } catch (error) {
      if (!(error instanceof ControlClientError && error.daemonCode === ControlErrorCode.badRequest)) throw error;
      return read(ControlPath.snapshot);
    }
  };
  return {
    socketPath,
    getSnapshot,
    async getStatus() {
      let body: unknown;
      try {
        body = await call('GET', ControlPath.status, CONTROL_READ_TIMEOUT_MS);
      } catch (error) {
        // A daemon from before /v1/status has no such route: its snapshot holds everything the status does.
        if (error instanceof ControlClientError && error.daemonCode === ControlErrorCode.notFound) return getSnapshot();
        throw error;
      }
      if (!isControlStatus(body)) {
        const version = (body as { apiVersion?: unknown } | null)?.apiVersion;
        if (typeof version === 'string' && version !== CONTROL_API_VERSION) throw versionMismatch(socketPath, version);
        throw notMlb(socketPath, 'its status is not an mlb.io/v1 status');
      }
      return body;
    },
    async getExplain(filter = {}) {
      const query = explainQuery({ ...EVERY_EXPLANATION, ...filter });
      const body = await call('GET', `${ControlPath.explain}${query}`, CONTROL_READ_TIMEOUT_MS);
      if (!Array.isArray(body) || !body.every(isExplanation))
        throw notMlb(socketPath, 'its explanations are not a list of {service, ip, candidates}');
      return body;
    },
    drain: (node) =>
      call('POST', `${ControlPath.drain}${nodeQuery(node)}`, CONTROL_DRAIN_TIMEOUT_MS).then((b) => asDrainResult(socketPath, b)),
    undrain: (node) =>
      call('POST', `${ControlPath.undrain}${nodeQuery(node)}`, CONTROL_DRAIN_TIMEOUT_MS).then((b) => asDrainResult(socketPath, b)),
    endWarmUp: () => call('POST', ControlPath.endWarmUp, CONTROL_DRAIN_TIMEOUT_MS).then((b) => asDrainResult(socketPath, b)),
    followEvents: (after, onEvent, signal) => followDaemonEvents(socketPath, after, onEvent, signal),
  };
}

/** One GET /v1/events, read line by line until it ends; see ControlClient.followEvents. */
function followDaemonEvents(socketPath: string, after: number, onEvent: (event: DaemonEvent) => void, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    let settled = false;
    const settle = (error?: ControlClientError) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => settle();
    const path = `${ControlPath.events}?after=${after}`;
    const req = request({ socketPath, method: 'GET', path, agent: false, headers: { accept: 'application/x-ndjson' } }, (res) => {
      if (res.statusCode !== 200 || res.headers[CONTROL_API_HEADER] !== CONTROL_API_VERSION) {
        // Not a stream: an error body, or not mlb at all; readAnswer says which.
        readAnswer(socketPath, res).then(
          () => settle(notMlb(socketPath, `it answered ${path} without a stream`)),
          (error: ControlClientError) => settle(error),
        );
        return;
      }
      const decoder = new EventLineDecoder();
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        for (const line of decoder.push(text)) {
          if (settled) return;
          if (line.kind === 'invalid') {
            settle(notMlb(socketPath, `its event stream carries ${line.problem}`));
            return;
          }
          onEvent(line.event);
        }
      });
      res.once('end', () => settle(decoder.pending.trim() === '' ? undefined : streamBroken(socketPath, 'it ended mid-line')));
      res.once('aborted', () => settle(streamBroken(socketPath, 'the daemon closed it mid-way (did it stop or crash?)')));
      res.once('error', () => settle(streamBroken(socketPath, 'the connection failed')));
      res.once('close', () => settle(res.complete ? undefined : streamBroken(socketPath, 'the connection closed mid-way')));
    });
    req.setTimeout(EVENT_STREAM_IDLE_TIMEOUT_MS, () => {
      settle(
        new ControlClientError(
          `the daemon on ${socketPath} sent nothing for ${EVENT_STREAM_IDLE_TIMEOUT_MS / 1000} s, not even a heartbeat; is it hung?`,
          'controlTimeout',
        ),
      );
    });
    req.once('error', (error: NodeJS.ErrnoException) =>
      settle(error instanceof ControlClientError ? error : connectionError(socketPath, error)),
    );
    signal.addEventListener('abort', onAbort, { once: true });
    req.end();
  });
}

function streamBroken(socketPath: string, why: string): ControlClientError {
  return new ControlClientError(`the event stream from ${socketPath} broke off: ${why}`, 'controlStreamBroken');
}

/** One request; resolves with the parsed JSON of a 200 answer, rejects with a ControlClientError otherwise. */
function callDaemon(socketPath: string, method: string, path: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, agent: false, headers: { accept: 'application/json' } }, (res) => {
      readAnswer(socketPath, res).then(resolve, reject);
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy(
        new ControlClientError(
          `the daemon on ${socketPath} did not answer within ${timeoutMs / 1000} s; its log may say why`,
          'controlTimeout',
        ),
      );
    });
    req.once('error', (error: NodeJS.ErrnoException) =>
      reject(error instanceof ControlClientError ? error : connectionError(socketPath, error)),
    );
    req.end();
  });
}

async function readAnswer(socketPath: string, res: IncomingMessage): Promise<unknown> {
  const version = res.headers[CONTROL_API_HEADER];
  if (version === undefined) {
    res.destroy();
    throw notMlb(socketPath, `it answers HTTP without the ${CONTROL_API_HEADER} header`);
  }
  if (version !== CONTROL_API_VERSION) {
    res.destroy();
    throw versionMismatch(socketPath, String(version));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > CONTROL_MAX_RESPONSE_BYTES) {
      res.destroy();
      throw notMlb(socketPath, `its answer exceeds ${CONTROL_MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw notMlb(socketPath, 'its answer is not JSON');
  }
  if (res.statusCode === 200) return body;
  if (isControlErrorBody(body)) {
    throw new ControlClientError(`the daemon refused: ${body.error.message}`, 'controlDaemonError', body.error.code);
  }
  throw notMlb(socketPath, `it answered ${res.statusCode} without an error body`);
}

/** Turns a socket errno into what the user should do about it. */
function connectionError(socketPath: string, error: NodeJS.ErrnoException): ControlClientError {
  switch (error.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new ControlClientError(
        `no control socket at ${socketPath}: is mlb daemon running? it listens on ${DEFAULT_CONTROL_SOCKET} by default; pass --socket (or set MLB_SOCKET) if it listens elsewhere`,
        'controlSocketMissing',
      );
    case 'EACCES':
    case 'EPERM':
      return new ControlClientError(permissionDeniedMessage(socketPath, socketGroup(socketPath)), 'controlPermissionDenied');
    case 'ECONNREFUSED':
      if (!isSocketFile(socketPath)) return notMlb(socketPath, 'it is not a socket');
      return new ControlClientError(
        `nothing listens on ${socketPath} (a daemon that stopped or crashed left it behind): is mlb daemon running?`,
        'controlNotListening',
      );
    default:
      if (error.code?.startsWith('HPE_')) return notMlb(socketPath, 'it does not speak HTTP');
      return new ControlClientError(`cannot reach the daemon on ${socketPath}: ${error.message}`, 'controlConnectionFailed');
  }
}

function notMlb(socketPath: string, why: string): ControlClientError {
  return new ControlClientError(`${socketPath} is not an mlb daemon's control socket: ${why}; check --socket`, 'notMlbSocket');
}

function versionMismatch(socketPath: string, theirs: string): ControlClientError {
  return new ControlClientError(
    `the daemon on ${socketPath} speaks ${theirs}, this mlb speaks ${CONTROL_API_VERSION}: use the mlb binary that came with the daemon`,
    'controlVersionMismatch',
  );
}

function nodeQuery(node: string | undefined): string {
  return node === undefined ? '' : `?node=${encodeURIComponent(node)}`;
}

function asDrainResult(socketPath: string, body: unknown): DrainResult {
  const b = body as { changed?: unknown; message?: unknown; request?: unknown } | null;
  if (typeof b !== 'object' || b === null || typeof b.changed !== 'boolean' || typeof b.message !== 'string') {
    throw notMlb(socketPath, 'its drain answer is not {changed, message}');
  }
  if (b.request === undefined) return { changed: b.changed, message: b.message };
  const r = b.request as Partial<NonNullable<DrainResult['request']>> | null;
  if (
    typeof r !== 'object' ||
    r === null ||
    typeof r.target !== 'string' ||
    (r.action !== 'drain' && r.action !== 'undrain') ||
    typeof r.requestedBy !== 'string' ||
    !Number.isSafeInteger(r.seq)
  ) {
    throw notMlb(socketPath, 'its drain answer names a request that is not {target, action, requestedBy, seq}');
  }
  return {
    changed: b.changed,
    message: b.message,
    request: { target: r.target, action: r.action, requestedBy: r.requestedBy, seq: r.seq as number },
  };
}

function isExplanation(value: unknown): value is Explanation {
  const e = value as Partial<Explanation> | null;
  return typeof e === 'object' && e !== null && typeof e.service === 'string' && typeof e.ip === 'string' && Array.isArray(e.candidates);
}

function isSocketFile(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return true; // Gone since the connect: report it as a daemon that is not listening.
  }
}

/** The socket file's group: its gid and, when /etc/group has it, its name; undefined when the file is gone. */
function socketGroup(path: string): { gid: number; name?: string } | undefined {
  let gid: number;
  try {
    gid = statSync(path).gid;
  } catch {
    return undefined;
  }
  let name: string | undefined;
  try {
    name = findGroupName(readFileSync(GROUP_FILE, 'utf8'), gid);
  } catch {
    name = undefined;
  }
  return name === undefined ? { gid } : { gid, name };
}

/**
 * What to do about EACCES on the socket, naming its actual group. Group root is never suggested: joining it gives
 * far more than mlb; the daemon's --control-socket-group is the way to let other users in.
 */
export function permissionDeniedMessage(socketPath: string, group: { gid: number; name?: string } | undefined): string {
  const head = `permission denied on ${socketPath} (mode 0660`;
  if (group === undefined) return `${head}): run as root or as a member of the socket's group`;
  const label = group.name ?? `gid ${group.gid}`;
  if (group.gid === 0) {
    return `${head}, group ${label}): run as root (sudo); to let other users in, start the daemon with --control-socket-group mlb (a group they are in)`;
  }
  const join =
    group.name === undefined
      ? `add yourself to group ${group.gid}`
      : `add yourself to group ${group.name} (sudo usermod -aG ${group.name} "$USER", then log in again)`;
  return `${head}, group ${label}): ${join}, or run as root`;
}
