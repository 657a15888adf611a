/**
 * A connection cap for the daemon's small HTTP servers (metrics, control socket; the runtime's real-http-server.ts applies it) that never locks a caller out.
 *
 * Node's `server.maxConnections` closes every new connection once the cap is reached, whatever the open ones are
 * doing: a handful of clients that connect and send nothing (or keep an idle keep-alive connection) then hold
 * the server shut until Node's header timeout fires, which it checks only every `connectionsCheckingInterval`
 * (30 s by default). Here instead a new connection at the cap closes the oldest *idle* connection (one without
 * a request being answered: it never sent a full request, or waits between keep-alive requests) to make room,
 * and is refused only when every open connection is busy answering. Long-lived answers (the control socket's
 * event streams) must therefore be capped below the connection cap by their server, so idle room always exists.
 *
 * The decision is pure (`admitConnection`); `capConnections` is the shell that tracks sockets on a server.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface TrackedConnection {
  readonly id: number;
  /** Epoch ms it was accepted; the oldest idle one goes first (it had the longest chance to send). */
  readonly openedAt: number;
  /** Requests being answered on it now (keep-alive pipelining may make it more than one). */
  readonly activeRequests: number;
}

export type AdmitDecision =
  | { readonly admit: true; readonly reason: 'underCap' }
  | { readonly admit: true; readonly reason: 'evictedIdle'; readonly evict: number }
  | { readonly admit: false; readonly reason: 'allBusy' };

/** Whether a new connection may join `open` (which excludes it) under `cap`, and whom it displaces. */
export function admitConnection(open: readonly TrackedConnection[], cap: number): AdmitDecision {
  if (open.length < cap) return { admit: true, reason: 'underCap' };
  let oldestIdle: TrackedConnection | undefined;
  for (const c of open) {
    if (c.activeRequests === 0 && (oldestIdle === undefined || c.openedAt < oldestIdle.openedAt)) oldestIdle = c;
  }
  return oldestIdle ? { admit: true, reason: 'evictedIdle', evict: oldestIdle.id } : { admit: false, reason: 'allBusy' };
}

export interface ConnectionCapStats {
  /** Idle connections closed to make room for a new one. */
  evictedIdle: number;
  /** New connections closed at once because every open one was busy. */
  refused: number;
  /** Open now. */
  open: number;
}

export interface ConnectionCap {
  readonly stats: () => ConnectionCapStats;
}

interface Entry {
  readonly id: number;
  readonly socket: Socket;
  readonly openedAt: number;
  activeRequests: number;
}

/**
 * Tracks every connection of `server` and applies admitConnection to each new one. `onShed` is told about each
 * connection closed by the cap (for a log line); `now` is injectable for tests.
 */
export function capConnections(
  server: Server,
  cap: number,
  onShed: (reason: 'evictedIdle' | 'allBusy', open: number) => void,
  now: () => number = Date.now,
): ConnectionCap {
  const entries = new Map<Socket, Entry>();
  const stats = { evictedIdle: 0, refused: 0 };
  let nextId = 1;
  server.on('connection', (socket: Socket) => {
    const decision = admitConnection([...entries.values()], cap);
    if (!decision.admit) {
      stats.refused++;
      onShed('allBusy', entries.size);
      socket.destroy();
      return;
    }
    if (decision.reason === 'evictedIdle') {
      for (const e of entries.values()) {
        if (e.id !== decision.evict) continue;
        stats.evictedIdle++;
        entries.delete(e.socket);
        onShed('evictedIdle', entries.size);
        e.socket.destroy();
        break;
      }
    }
    const entry: Entry = { id: nextId++, socket, openedAt: now(), activeRequests: 0 };
    entries.set(socket, entry);
    socket.once('close', () => entries.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const entry = entries.get(req.socket);
    if (!entry) return;
    entry.activeRequests++;
    res.once('close', () => {
      entry.activeRequests--;
    });
  });
  return { stats: () => ({ ...stats, open: entries.size }) };
}
