/**
 * The shell around one probe: open a packet socket on the interface (kernel filter: replies only), send one ARP
 * request or Neighbor Solicitation, collect the MACs that answer for a short window, close. The daemon's
 * split-brain self-check calls it every few seconds per owned IP; `mlb arping` has its own multi-probe loop.
 *
 * The socket is opened before the probe goes out, so even a reply from the same host (microseconds later) is
 * heard. Every MAC that answers is returned, ours included: the caller knows which MACs are its own.
 */
import type { IP } from '../../../ip';
import { openPacketSocket, type PacketSocket, type PacketSocketError, type PacketSocketOptions } from '../../../native';
import { buildProbe, matchReply, replyFilter, type ArpingInterface } from './neighbor-probe';
import { CodedError } from '../../../errors/coded-error';
import { REAL_RUNTIME } from '../../../runtime/real-runtime';
import type { Scheduler } from '../../../runtime/runtime';

/**
 * How long replies are collected. A kernel or mlb's responder answers on the same segment within a millisecond;
 * a busy owner (a loaded speaker, a slow VM) within tens. Half a second leaves a wide margin and still lets the
 * self-check's in-flight limit cover many IPs per second.
 */
export const PROBE_REPLY_WINDOW_MS = 500;

export const NEIGHBOR_PROBE_ERROR_CODES = ['noSourceAddress'] as const;
export type NeighborProbeErrorCode = (typeof NEIGHBOR_PROBE_ERROR_CODES)[number];

/** The probe could not be built (an IPv6 target on an interface without any IPv6 address). */
export class NeighborProbeError extends CodedError<NeighborProbeErrorCode> {}

export interface ProbeOnceRequest {
  readonly target: IP;
  readonly iface: ArpingInterface;
  /** Default PROBE_REPLY_WINDOW_MS. */
  readonly windowMs?: number;
  /** Ends the wait early (the daemon is closing); what was heard so far is returned. */
  readonly signal?: AbortSignal;
}

export interface ProbeOnceOutcome {
  /** False when the kernel's send queue refused the frame: nothing was asked, so silence means nothing. */
  readonly sent: boolean;
  /** Every MAC that answered (lowercase, colon-separated), in the order they first answered. */
  readonly macs: readonly string[];
  /** Socket trouble reported while waiting (a link going down); the probe still returns what it heard. */
  readonly socketErrors: readonly string[];
}

export interface ProbeOnceDeps {
  /** Injected in unit tests; openPacketSocket otherwise. */
  readonly openSocket?: (options: PacketSocketOptions) => PacketSocket;
  /** The reply window's timer (real by default). */
  readonly scheduler?: Scheduler;
}

/**
 * Sends one probe and waits windowMs for answers. Throws NeighborProbeError when no probe can be built and
 * PacketSocketError when the socket cannot be opened (no CAP_NET_RAW, no addon, no such interface) or the send
 * fails outright.
 */
export async function probeOnce(request: ProbeOnceRequest, deps: ProbeOnceDeps = {}): Promise<ProbeOnceOutcome> {
  const { target, iface } = request;
  const built = buildProbe(target, iface);
  if (!built.ok) throw new NeighborProbeError('noSourceAddress', built.problem);
  const probe = built.probe;
  const macs: string[] = [];
  const socketErrors: string[] = [];
  const socket = (deps.openSocket ?? openPacketSocket)({
    ifname: iface.name,
    protocol: probe.kind === 'arp' ? 'arp' : 'ipv6',
    filter: replyFilter(probe.kind),
    // The kernel's default buffer: the filter lets only replies through, a handful per probe.
    receiveBufferBytes: 0,
    onFrame: (frame) => {
      const match = matchReply(frame, { target, iface, probe });
      if ('mac' in match && !macs.includes(match.mac)) macs.push(match.mac);
    },
    onError: (error: PacketSocketError) => socketErrors.push(error.message),
  });
  try {
    if (request.signal?.aborted) return { sent: false, macs, socketErrors };
    const sent = socket.send(probe.frame);
    if (sent) await wait(deps.scheduler ?? REAL_RUNTIME, request.windowMs ?? PROBE_REPLY_WINDOW_MS, request.signal);
    return { sent, macs: [...macs], socketErrors };
  } finally {
    socket.close();
  }
}

function wait(scheduler: Scheduler, ms: number, signal: AbortSignal | undefined): Promise<void> {
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
