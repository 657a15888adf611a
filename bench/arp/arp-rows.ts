/**
 * bench/arp's verdict, pure: the runs of one (VIP count, rate) pooled per responder (the kernel answering for its
 * own address, the daemon for the VIPs it holds), and the rows "what | mlb | kernel | ratio | target | ok" with the
 * targets the bench holds mlb to.
 */
import { quantile } from '../gossip/lab-nodes';

/** mlb's median reply no slower than twice the kernel's (the kernel answers in softirq, mlb in user space). */
export const TARGET_P50_RATIO = 2;
/** A client's ARP cache miss should cost it no more than a millisecond, in the tail too. */
export const TARGET_P99_US = 1_000;
/** Every request answered within the timeout (bench/arp/daemon-arp.ts TIMEOUT_MS): a lost one stalls a client. */
export const TARGET_LOST = 0;

/** What bench/arp/generator.ts returns for one run (the fields used here). */
export interface ArpSample {
  readonly count: number;
  readonly replies: number;
  readonly duplicates: number;
  readonly achievedRate: number;
  /** How late the generator's sends were against their schedule (p99, µs): a held-up generator measures itself. */
  readonly lagP99Us: number;
  /** The latency of every answered request (µs). */
  readonly latUs: readonly number[];
}

export interface Pooled {
  readonly requests: number;
  readonly replies: number;
  readonly lost: number;
  readonly duplicates: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
  readonly lowestRate: number;
  readonly worstLagP99Us: number;
}

export function pool(runs: readonly ArpSample[]): Pooled {
  const lat: number[] = [];
  for (const r of runs) for (const l of r.latUs) lat.push(l);
  const sorted = Array.from(Float64Array.from(lat).sort());
  const requests = runs.reduce((n, r) => n + r.count, 0);
  const replies = runs.reduce((n, r) => n + r.replies, 0);
  return {
    requests,
    replies,
    lost: requests - replies,
    duplicates: runs.reduce((n, r) => n + r.duplicates, 0),
    p50Us: quantile(sorted, 0.5),
    p99Us: quantile(sorted, 0.99),
    maxUs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    lowestRate: Math.min(...runs.map((r) => r.achievedRate)),
    worstLagP99Us: Math.max(...runs.map((r) => r.lagP99Us)),
  };
}

export function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return '-';
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
  return `${us.toFixed(us < 10 ? 1 : 0)} µs`;
}

export interface ArpRow {
  readonly what: string;
  readonly mlb: string;
  readonly kernel: string;
  readonly ratio: string;
  readonly target: string;
  readonly ok: boolean;
}

const count = (n: number) => n.toLocaleString('en');

/** The three rows of one (VIP count, rate): p50 against the kernel's, p99, requests lost. */
export function arpRows(vips: number, rate: number, mlb: Pooled, kernel: Pooled): ArpRow[] {
  const at = `${count(vips)} VIP${vips === 1 ? '' : 's'}, ${count(rate)}/s`;
  const p50Ratio = mlb.p50Us / kernel.p50Us;
  return [
    {
      what: `${at}: p50`,
      mlb: fmtUs(mlb.p50Us),
      kernel: fmtUs(kernel.p50Us),
      ratio: `${p50Ratio.toFixed(2)}x`,
      target: `<= ${TARGET_P50_RATIO}x kernel`,
      ok: p50Ratio <= TARGET_P50_RATIO,
    },
    {
      what: `${at}: p99`,
      mlb: fmtUs(mlb.p99Us),
      kernel: fmtUs(kernel.p99Us),
      ratio: `${(mlb.p99Us / kernel.p99Us).toFixed(2)}x`,
      target: `<= ${fmtUs(TARGET_P99_US)}`,
      ok: mlb.p99Us <= TARGET_P99_US,
    },
    {
      what: `${at}: lost`,
      mlb: `${count(mlb.lost)} of ${count(mlb.requests)}`,
      kernel: `${count(kernel.lost)} of ${count(kernel.requests)}`,
      ratio: '-',
      target: String(TARGET_LOST),
      ok: mlb.requests > 0 && mlb.lost <= TARGET_LOST,
    },
  ];
}
