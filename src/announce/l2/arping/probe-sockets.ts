/**
 * Probes on long-lived packet sockets: one per interface and kind (ARP, IPv6), opened on the first probe there
 * and kept, with every probe in flight on it waiting for its own replies. probe-once.ts opens a socket per probe,
 * which suits `mlb arping`'s occasional question but not the daemon's self-check: with 10,000 owned IPs it asked
 * dozens of times a second, and each probe cost a socket, a kernel filter and a close.
 *
 * A reply is matched against every probe in flight on its socket (neighbor-probe.ts's matchReply: it must answer
 * that very question), so concurrent probes of different targets never take each other's answers. A socket that
 * reports trouble or fails a send is closed and opened again by the next probe there (an interface recreated
 * with the same name has a new index, and a socket bound to the old one hears nothing).
 */
import { openPacketSocket, type PacketSocket, type PacketSocketError, type PacketSocketOptions } from '../../../native';
import { REAL_RUNTIME } from '../../../runtime/real-runtime';
import type { Scheduler } from '../../../runtime/runtime';
import { buildProbe, matchReply, replyFilter, type ArpingProbe } from './neighbor-probe';
import { NeighborProbeError, PROBE_REPLY_WINDOW_MS, type ProbeOnceOutcome, type ProbeOnceRequest } from './probe-once';

export interface ProbeSocketsDeps {
  /** Injected in unit tests; openPacketSocket otherwise. */
  readonly openSocket?: (options: PacketSocketOptions) => PacketSocket;
  /** The reply window's timer (real by default). */
  readonly scheduler?: Scheduler;
}

interface Waiting {
  readonly request: ProbeOnceRequest;
  readonly probe: ArpingProbe;
  readonly macs: string[];
  readonly socketErrors: string[];
}

interface Shared {
  readonly socket: PacketSocket;
  readonly waiting: Set<Waiting>;
  /** The socket reported trouble: the next probe on this interface opens a new one. */
  stale: boolean;
}

/** A reply window, shared by the probes sent in one turn of the event loop (see wait). */
interface Window {
  readonly ms: number;
  readonly signal: AbortSignal | undefined;
  readonly over: Promise<void>;
}

export class ProbeSockets {
  private readonly sockets = new Map<string, Shared>();
  /** The window probes sent in this turn join; forgotten once the turn's synchronous work is over. */
  private window: Window | undefined;
  private closed = false;
  /** Sockets opened so far (the self-check's metrics and tests: one per interface and kind, not one per probe). */
  opened = 0;

  constructor(private readonly deps: ProbeSocketsDeps = {}) {}

  /** probeOnce's contract (same errors, same outcome) on the shared socket of the request's interface. */
  async probe(request: ProbeOnceRequest): Promise<ProbeOnceOutcome> {
    const built = buildProbe(request.target, request.iface);
    if (!built.ok) throw new NeighborProbeError('noSourceAddress', built.problem);
    const waiting: Waiting = { request, probe: built.probe, macs: [], socketErrors: [] };
    if (this.closed || request.signal?.aborted) return { sent: false, macs: [], socketErrors: [] };
    const key = `${request.iface.name}|${built.probe.kind}`;
    const shared = this.socketFor(key, request.iface.name, built.probe.kind);
    shared.waiting.add(waiting);
    try {
      let sent: boolean;
      try {
        sent = shared.socket.send(built.probe.frame);
      } catch (error) {
        this.drop(key, shared);
        throw error;
      }
      if (sent) await this.wait(request.windowMs ?? PROBE_REPLY_WINDOW_MS, request.signal);
      return { sent, macs: [...waiting.macs], socketErrors: [...waiting.socketErrors] };
    } finally {
      shared.waiting.delete(waiting);
    }
  }

  close(): void {
    this.closed = true;
    for (const [key, shared] of this.sockets) this.drop(key, shared);
  }

  private socketFor(key: string, ifname: string, kind: ArpingProbe['kind']): Shared {
    const existing = this.sockets.get(key);
    if (existing && !existing.stale && !existing.socket.closed) return existing;
    if (existing) this.drop(key, existing);
    const waiting = new Set<Waiting>();
    const socket = (this.deps.openSocket ?? openPacketSocket)({
      ifname,
      protocol: kind === 'arp' ? 'arp' : 'ipv6',
      filter: replyFilter(kind),
      // The kernel's default buffer: the filter lets only replies through, a handful per probe.
      receiveBufferBytes: 0,
      onFrame: (frame) => {
        for (const w of waiting) {
          const match = matchReply(frame, { target: w.request.target, iface: w.request.iface, probe: w.probe });
          if ('mac' in match && !w.macs.includes(match.mac)) w.macs.push(match.mac);
        }
      },
      onError: (error: PacketSocketError) => {
        for (const w of waiting) w.socketErrors.push(error.message);
        // Replaced by the next probe (not closed here, inside the addon's callback): the link may have been
        // recreated under another index.
        shared.stale = true;
      },
    });
    this.opened++;
    const shared: Shared = { socket, waiting, stale: false };
    this.sockets.set(key, shared);
    return shared;
  }

  private drop(key: string, shared: Shared): void {
    if (this.sockets.get(key) === shared) this.sockets.delete(key);
    if (!shared.socket.closed) shared.socket.close();
  }

  /**
   * The reply window: probes sent in the same turn (the self-check starts a pass's probes together) wait on one
   * timer and one abort listener, not one each: at the self-check's 50 probes a second, a timer per probe was the
   * largest part of an idle daemon's timer work. Their windows end together, as they were sent together.
   */
  private wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const joined = this.window;
    if (joined && joined.ms === ms && joined.signal === signal) return joined.over;
    const window: Window = { ms, signal, over: this.startWindow(ms, signal) };
    this.window = window;
    // A microtask runs once this turn's synchronous work (the pass that sent these probes) is over.
    queueMicrotask(() => {
      if (this.window === window) this.window = undefined;
    });
    return window.over;
  }

  private startWindow(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const scheduler = this.deps.scheduler ?? REAL_RUNTIME;
    return new Promise((resolve) => {
      const done = (): void => {
        timer.cancel();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = scheduler.after(ms, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
