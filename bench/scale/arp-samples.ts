/**
 * The ARP requests of bench/scale's runs, pure: decoding the generator's per-request record (bench/arp/generator.ts
 * PerRequest), latency quantiles and loss, and the requests of the "while binding" row: those for a VIP that the
 * bench had already seen bound on mlb0 when the request left (a host that accepts a VIP's traffic while nobody
 * answers ARP for it is what a user notices).
 */
import type { PerRequest } from '../arp/generator';
import { quantile } from '../gossip/lab-nodes';

export interface RequestLog {
  /** The generator's run start on the epoch (ms). */
  readonly t0EpochMs: number;
  /** Per request: the index of the address asked for, its send time (µs after t0), its latency (µs, NaN: none). */
  readonly target: Uint32Array;
  readonly sentUs: Float64Array;
  readonly latUs: Float64Array;
}

/** Base64 into a fresh (aligned) buffer: a Buffer from the pool may start at an offset no Float64Array accepts. */
function bytesOf(base64: string): ArrayBuffer {
  return new Uint8Array(Buffer.from(base64, 'base64')).buffer;
}

export function decodeRequests(record: PerRequest): RequestLog {
  return {
    t0EpochMs: record.t0EpochMs,
    target: new Uint32Array(bytesOf(record.target)),
    sentUs: new Float64Array(bytesOf(record.sentUs)),
    latUs: new Float64Array(bytesOf(record.latUs)),
  };
}

export interface ArpStats {
  readonly requests: number;
  /** Answered within the timeout. */
  readonly answered: number;
  readonly lost: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

/** A request with no reply, or a reply later than timeoutUs, is lost (as bench/arp counts it). */
export function arpStats(latencies: ArrayLike<number>, timeoutUs: number): ArpStats {
  const answered: number[] = [];
  for (let i = 0; i < latencies.length; i++) {
    const l = latencies[i]!;
    if (!Number.isNaN(l) && l <= timeoutUs) answered.push(l);
  }
  const sorted = Float64Array.from(answered).sort();
  return {
    requests: latencies.length,
    answered: answered.length,
    lost: latencies.length - answered.length,
    p50Us: quantile(Array.from(sorted), 0.5),
    p99Us: quantile(Array.from(sorted), 0.99),
  };
}

export interface WhileBindingStats extends ArpStats {
  /** Requests for VIPs not yet seen bound when they left (not held to any target). */
  readonly beforeBound: number;
  /** Of those, answered anyway (the daemon answers before the address is on mlb0). */
  readonly beforeBoundAnswered: number;
}

/** One request for a VIP: when it left (epoch ms), when its VIP was first seen bound, its latency (NaN: none). */
interface VipRequest {
  readonly sentAt: number;
  readonly boundAt: number | undefined;
  readonly latUs: number;
}

/**
 * Every request for a VIP in `logs`. `boundAtMs(i)`: the epoch ms of the first look at mlb0 that showed target i
 * (the look ended then, so the address was there by that time), undefined: never seen. Targets from
 * `firstReference` on are the reference (the node kernel's own address, asked for in the same runs): they are not
 * VIPs, and are left to referenceStats.
 */
function* vipRequests(
  logs: readonly RequestLog[],
  boundAtMs: (target: number) => number | undefined,
  firstReference: number,
): Generator<VipRequest> {
  for (const log of logs) {
    for (let i = 0; i < log.sentUs.length; i++) {
      if (log.target[i]! >= firstReference) continue;
      yield { sentAt: log.t0EpochMs + log.sentUs[i]! / 1_000, boundAt: boundAtMs(log.target[i]!), latUs: log.latUs[i]! };
    }
  }
}

/** A request that left once its VIP was seen bound: what the while-binding targets hold the daemon to. */
const held = (r: VipRequest): r is VipRequest & { boundAt: number } => r.boundAt !== undefined && r.sentAt >= r.boundAt;

/** The requests for a VIP already seen bound when they left (vipRequests), and the others counted apart. */
export function whileBindingStats(
  logs: readonly RequestLog[],
  boundAtMs: (target: number) => number | undefined,
  timeoutUs: number,
  firstReference = Number.POSITIVE_INFINITY,
): WhileBindingStats {
  const latencies: number[] = [];
  let beforeBound = 0;
  let beforeBoundAnswered = 0;
  for (const r of vipRequests(logs, boundAtMs, firstReference)) {
    if (held(r)) {
      latencies.push(r.latUs);
    } else {
      beforeBound++;
      if (r.latUs <= timeoutUs) beforeBoundAnswered++;
    }
  }
  return { ...arpStats(latencies, timeoutUs), beforeBound, beforeBoundAnswered };
}

/**
 * Of the held requests slower than `slowUs` or lost: how many, and how many of those left within `soonMs` of the
 * first look that showed their VIP bound; the same for the lost ones alone (no reply within `timeoutUs`). The
 * daemon answers a VIP once it has read the kernel's acknowledgement of its batch, and a look can see the address
 * on mlb0 before that: slow or lost requests clustered right after the look would be that race, spread ones
 * something else.
 */
export function slowAfterBound(
  logs: readonly RequestLog[],
  boundAtMs: (target: number) => number | undefined,
  limits: { readonly slowUs: number; readonly soonMs: number; readonly timeoutUs: number },
  firstReference = Number.POSITIVE_INFINITY,
): { readonly slow: number; readonly soonAfterBound: number; readonly lost: number; readonly lostSoonAfterBound: number } {
  let slow = 0;
  let soonAfterBound = 0;
  let lost = 0;
  let lostSoonAfterBound = 0;
  for (const r of vipRequests(logs, boundAtMs, firstReference)) {
    // A lost request (no latency) is as slow as they come.
    if (!held(r) || r.latUs <= limits.slowUs) continue;
    const soon = r.sentAt - r.boundAt <= limits.soonMs;
    slow++;
    if (soon) soonAfterBound++;
    if (r.latUs <= limits.timeoutUs) continue;
    lost++;
    if (soon) lostSoonAfterBound++;
  }
  return { slow, soonAfterBound, lost, lostSoonAfterBound };
}

/**
 * The requests for the reference targets (indices from `firstReference` on: the node kernel's own address), sent
 * in the same runs as the VIPs' and so at the same moments: what the machine itself does for ARP meanwhile.
 * Only those sent from `fromEpochMs` on (the first VIP seen bound: the window the VIPs' requests are held in).
 */
export function referenceStats(logs: readonly RequestLog[], firstReference: number, timeoutUs: number, fromEpochMs: number): ArpStats {
  const latencies: number[] = [];
  for (const log of logs)
    for (let i = 0; i < log.sentUs.length; i++) {
      const sentAt = log.t0EpochMs + log.sentUs[i]! / 1_000;
      if (log.target[i]! >= firstReference && sentAt >= fromEpochMs) latencies.push(log.latUs[i]!);
    }
  return arpStats(latencies, timeoutUs);
}

/** When the first answered request of a run was answered, on the epoch (ms); undefined when none was. */
export function firstAnswerAtMs(log: RequestLog): number | undefined {
  let first: number | undefined;
  for (let i = 0; i < log.sentUs.length; i++) {
    const lat = log.latUs[i]!;
    if (Number.isNaN(lat)) continue;
    const at = log.t0EpochMs + (log.sentUs[i]! + lat) / 1_000;
    if (first === undefined || at < first) first = at;
  }
  return first;
}
