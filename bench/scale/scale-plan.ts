/**
 * What bench/scale runs at each size, how fast and for how long: the request rates, the waits and their reasons,
 * each row's time limit, where the generator and the daemon run, and the shell's small helpers.
 */
import { cpus } from 'node:os';
import { formatValue, type Measured } from './scale-rows';

export const SIZES = (process.env.SCALE_SIZES ?? '1000,10000').split(',').map(Number);
export const IDLE_MS = Number(process.env.SCALE_IDLE_SECONDS ?? 30) * 1_000;
/** The issue's rate for the latency targets. */
export const ARP_RATE = Number(process.env.SCALE_ARP_RATE ?? 10_000);
export const ARP_SECONDS = 3;
export const ARP_ROUNDS = 2;
/**
 * While binding: binding lasts minutes at 10,000 today, and every request is recorded; 1,000/s keeps that record
 * a few MB and is the rate the scale issue first measured it at.
 */
export const BINDING_ARP_RATE = 1_000;
/**
 * The share of the while-binding requests asked of the node kernel's own address instead of a VIP, in the same
 * runs: the machine's own ARP latency at the same moments, the reference beside the VIPs' p99 (binding makes the
 * kernel busy for everyone). The VIPs keep BINDING_ARP_RATE; the runs send this much more on top.
 */
export const BINDING_REFERENCE_SHARE = 0.2;
/** One generator run of the while-binding load; the next starts after its last reply's timeout. */
export const BINDING_ARP_CHUNK_S = 2;
/** Requests/s while waiting for an added VIP's first answer: 1 ms of resolution. */
export const EDIT_ARP_RATE = 1_000;
export const RELOADS = 3;
/** After a reload's configLoaded the daemon recomputes and reconciles; this lets that finish before the next. */
export const RELOAD_GAP_MS = 2_000;
/** Time for the reloads' garbage to be collected before "settled after reloads" is sampled (its last 5 s). */
export const SETTLE_AFTER_RELOADS_MS = 10_000;
export const SETTLED_WINDOW_MS = 5_000;
/** The gratuitous schedule (a burst, then every 1.1 s until 5 s after the change) is over by then. */
export const GRATUITOUS_QUIET_MS = 5_600;
export const EXPLAIN_NODES = 1_000;
export const HELP_RUNS = 10;
export const HELP_TIMEOUT_MS = 10_000;
/** Binding looks: every 100 ms for the first 5 s (the targets are 1 s and 3 s), every 250 ms after. */
export const BIND_LOOK_FAST_MS = 100;
export const BIND_LOOK_SLOW_MS = 250;
export const BIND_LOOK_FAST_FOR_MS = 5_000;
/** A look's resolution at its fastest: a slow request this soon after its VIP's look may have raced the daemon. */
export const SOON_AFTER_BOUND_MS = BIND_LOOK_FAST_MS;
/** Each look at 10,000 addresses costs `ip` a full dump: 50 ms keeps that cost small at a tenth of the target. */
export const EDIT_LOOK_MS = 50;

/** Each row's time limit at a size: a row that takes minutes on some build is cut there, not waited for. */
export function limitsFor(size: number) {
  const big = size > 1_000;
  return {
    /**
     * Long past the targets (1 s, 3 s), so that a slow build still gets measured settled where it can: binding
     * 10,000 took 140-268 s on a quiet machine before the daemon's netlink work was batched.
     */
    bindMs: big ? 150_000 : 60_000,
    statusMs: 15_000,
    editMs: big ? 20_000 : 10_000,
    reloadMs: big ? 20_000 : 10_000,
    /** systemd's TimeoutStopSec (systemd/mlb.service): past it the unit is SIGKILLed. */
    stopMs: 15_000,
    explainMs: big ? 60_000 : 45_000,
  };
}

export const CORES = cpus().length;
export const PIN_SPEC = process.env.SCALE_PIN ?? (CORES >= 2 ? '0,1' : 'off');
export const PIN = PIN_SPEC === 'off' ? undefined : (PIN_SPEC.split(',').map(Number) as [number, number]);

export const log = (text: string) => console.log(`  ${text}`);
export const ms = (value: number) => formatValue(value, 'ms');

export function valueOrFailure(v: number | undefined, detail?: string): Measured {
  if (v === undefined || !Number.isFinite(v)) return { kind: 'failed', why: `no value${detail ? ` (${detail})` : ''}` };
  return detail ? { kind: 'value', value: v, detail } : { kind: 'value', value: v };
}
