/**
 * bench/scale's rows measured on a daemon that is up, after its binding finished or was cut at its limit: RSS
 * settled and idle CPU, `mlb status --once` idle, ARP at a fixed rate against the kernel, one service added,
 * three reloads, SIGTERM. scale.bench.ts says how each is measured.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { sleep } from '../gossip/lab-nodes';
import type { ArpLoad } from './arp-load';
import { ARP_TIMEOUT_MS } from './arp-load';
import { arpStats, firstAnswerAtMs, type RequestLog } from './arp-samples';
import { describeEnd, timeMlb } from './cli-runs';
import { answerTimesSince, describeAnswerTimes, quantileBound, scrapeAnswerTimes, type AnswerTimes } from './answer-times';
import { clockTicksPerSecond, readCpuTimes, stealPercent } from './proc-stat';
import {
  ANSWER_THREAD_NAME,
  canTraceWakeups,
  describeWakeups,
  slowWakeups,
  startWakeupTrace,
  stopWakeupTrace,
  TRACE_WAKEUPS,
  wakeupsOf,
  type Wakeup,
} from './wakeup-trace';
import { scaleConfig, vipOf, vipsOf } from './scale-config';
import type { ScaleDaemon } from './scale-daemon';
import {
  ARP_RATE,
  ARP_ROUNDS,
  ARP_SECONDS,
  CORES,
  EDIT_ARP_RATE,
  EDIT_LOOK_MS,
  GRATUITOUS_QUIET_MS,
  IDLE_MS,
  limitsFor,
  log,
  ms,
  PIN,
  RELOAD_GAP_MS,
  RELOADS,
  SETTLE_AFTER_RELOADS_MS,
  SETTLED_WINDOW_MS,
  valueOrFailure,
} from './scale-plan';
import { FIXED_TARGETS, FLAT_RSS_GROWTH, formatValue, targetsFor, type Measured, type Row, type Unit } from './scale-rows';

/** What a size's run learned about binding: when each VIP was first seen on mlb0. */
export interface Binding {
  readonly boundAt: Map<string, number>;
  readonly doneMs: number | undefined;
}

export async function statusRow(daemon: ScaleDaemon, what: string, size: string, limitMs: number, note: string): Promise<Row> {
  const r = await timeMlb(['status', '--once', '--socket', daemon.socket], limitMs);
  const target = { max: FIXED_TARGETS.statusMs, text: `<= ${FIXED_TARGETS.statusMs} ms, answers` };
  if (r.timedOut) return { what, size, unit: 'ms', measured: { kind: 'timeout', afterMs: limitMs }, target };
  if (r.code !== 0) return { what, size, unit: 'ms', measured: { kind: 'failed', why: `${describeEnd(r)} after ${ms(r.ms)}` }, target };
  return { what, size, unit: 'ms', measured: valueOrFailure(r.ms, note || undefined), target };
}

/** Writes the file as an operator's tool should: a temporary file renamed over it. Returns the epoch ms of the rename. */
function replaceFile(file: string, text: string): number {
  writeFileSync(`${file}.tmp`, text);
  const at = Date.now();
  renameSync(`${file}.tmp`, file);
  return at;
}

function arpTargetRows(size: string, label: string, kernel: RequestLog[], mlb: RequestLog[], note: string): Row[] {
  const pooled = (logs: RequestLog[]) => {
    const all: number[] = [];
    for (const l of logs) for (const v of l.latUs) all.push(v);
    return arpStats(all, ARP_TIMEOUT_MS * 1_000);
  };
  const k = pooled(kernel);
  const m = pooled(mlb);
  const suffix = note ? `, ${note}` : '';
  /** Without a single answer there is no latency to compare: say so, not "no value". */
  const latency = (v: number, detail: string): Measured =>
    m.answered === 0 ? { kind: 'failed', why: `none of ${m.requests} answered (${detail})` } : valueOrFailure(v, detail);
  return [
    {
      what: `ARP p50 / kernel's ${label}`,
      size,
      unit: 'ratio',
      measured: latency(m.p50Us / k.p50Us, `${formatValue(m.p50Us, 'us')} vs kernel ${formatValue(k.p50Us, 'us')}${suffix}`),
      target: { max: FIXED_TARGETS.arpP50Ratio, text: `<= ${FIXED_TARGETS.arpP50Ratio}x` },
    },
    {
      what: `ARP p99 ${label}`,
      size,
      unit: 'us',
      measured: latency(m.p99Us, `kernel ${formatValue(k.p99Us, 'us')}${suffix}`),
      target: { max: FIXED_TARGETS.arpP99Us },
    },
    {
      what: `ARP lost ${label}`,
      size,
      unit: 'count',
      measured: valueOrFailure(m.lost, `of ${m.requests}; kernel lost ${k.lost} of ${k.requests}`),
      target: { max: FIXED_TARGETS.arpLost },
    },
  ];
}

/** An information row: the answer thread's own stages over a window (answer-times.ts), beside the client's view. */
function answerTimesRow(row: AddRow, label: string, times: AnswerTimes | undefined): void {
  const what = `  the answer thread ${label}: receive stamp -> read (queued) p99`;
  if (!times) {
    row(what, 'us', { kind: 'skipped', why: 'information: no answer times from the metrics endpoint' });
    return;
  }
  const p99 = quantileBound(times.queued, 0.99);
  const detail = `information, bucket bounds: ${describeAnswerTimes(times)}`;
  row(
    what,
    'us',
    p99 === undefined || !Number.isFinite(p99) ? { kind: 'skipped', why: detail } : { kind: 'value', value: p99 * 1e6, detail },
  );
}

/** An information row: the answer thread's traced wakeups over a window (wakeup-trace.ts). */
export function wakeupRow(row: AddRow, label: string, wakeups: readonly Wakeup[]): void {
  row(`  the answer thread's wakeups over 1 ms ${label} (traced: the ARP rows carry the tracing's cost)`, 'count', {
    kind: 'value',
    value: slowWakeups(wakeups),
    detail: `information: ${describeWakeups(wakeups)}`,
  });
}

/**
 * An information row: how much of each virtual CPU the hypervisor took over a window (/proc/stat steal). On a
 * virtual machine a woken thread waits for its virtual CPU to be run: the answer thread's tail (docs/scale.md).
 */
export function stealRow(row: AddRow, label: string, stolen: Map<number, number>): void {
  if (stolen.size === 0) return;
  const worst = Math.max(...stolen.values());
  const each = [...stolen].map(([cpu, p]) => `CPU ${cpu} ${p.toFixed(1)} %`).join(', ');
  row(`  CPU time the hypervisor took ${label} (steal, the busiest CPU)`, 'percent', {
    kind: 'value',
    value: worst,
    detail: `information: ${each}`,
  });
}

export type AddRow = (what: string, unit: Unit, measured: Measured, target?: Row['target']) => void;

/** The rows measured on a daemon that is up (whether or not it finished binding). */
export async function measureRunning(
  size: number,
  daemon: ScaleDaemon,
  arp: ArpLoad,
  binding: Binding,
  stillBinding: string,
  config: string,
  row: AddRow,
  rssTarget: Row['target'],
): Promise<void> {
  const limits = limitsFor(size);
  const targets = targetsFor(size);
  let note = stillBinding;
  let bound = [...binding.boundAt.keys()];
  const wanted = new Set(vipsOf(size));
  /**
   * After binding was cut at its limit, a fresh look before each group of rows: a row measured while the daemon
   * still binds says so, one measured after it finished does not (and ARP asks for every VIP bound by then).
   */
  const lookAgain = async () => {
    if (!note) return;
    bound = (await daemon.vipsBound()).filter((ip) => wanted.has(ip));
    note = bound.length === size ? '' : `still binding: ${bound.length}/${size} bound`;
    log(`binding: ${bound.length}/${size} bound`);
  };
  /** A value, or why there is none when the daemon died under the bench. */
  const value = (v: number | undefined, detail?: string): Measured =>
    v === undefined && !daemon.running ? { kind: 'failed', why: daemon.describeExit() } : valueOrFailure(v, detail);

  // ---- settled: RSS and idle CPU ----------------------------------------------------------------------------
  await sleep(GRATUITOUS_QUIET_MS);
  await lookAgain();
  const hz = clockTicksPerSecond();
  const cpu0 = daemon.cpuTicks();
  const idleFrom = performance.now();
  await sleep(IDLE_MS);
  const cpu1 = daemon.cpuTicks();
  const idleSeconds = (performance.now() - idleFrom) / 1_000;
  const settledRss = daemon.rssMedian(Date.now() - SETTLED_WINDOW_MS);
  row('RSS after settling', 'bytes', value(settledRss, note || undefined), rssTarget);
  const idlePercent = cpu0 !== undefined && cpu1 !== undefined ? (100 * (cpu1 - cpu0)) / hz / idleSeconds : undefined;
  row(`idle CPU over ${Math.round(idleSeconds)} s (% of a core)`, 'percent', value(idlePercent, note || undefined), {
    max: targets.idleCpuPercent,
  });

  const status = await statusRow(daemon, '`mlb status --once` idle', String(size), limits.statusMs, note);
  row(status.what, status.unit, status.measured, status.target);

  // ---- ARP at a fixed rate, kernel and mlb alternating -----------------------------------------------------
  await lookAgain();
  if (bound.length === 0) {
    for (const what of ['ARP p50 / kernel', 'ARP p99', 'ARP lost']) row(what, 'count', { kind: 'skipped', why: 'no VIP bound' });
  } else {
    const kernel: RequestLog[] = [];
    const mlb: RequestLog[] = [];
    const count = ARP_RATE * ARP_SECONDS;
    let duplicates = 0;
    const macs = new Set<string>();
    const tracedWakeups: Wakeup[][] = [];
    // Nothing asked the daemon for a VIP since the binding's requests: what its answer thread counted so far is theirs.
    const afterBinding = await scrapeAnswerTimes(daemon.host);
    answerTimesRow(row, 'while binding', afterBinding && answerTimesSince(afterBinding, undefined));
    if (PIN) daemon.pin(String(PIN[1]));
    const cpusBefore = readCpuTimes();
    for (let round = 0; round < ARP_ROUNDS; round++) {
      const k = await arp.run([daemon.host.ipv4], ARP_RATE, count);
      // SCALE_TRACE_WAKEUPS=1: the first round's scheduler events, for where the answer thread's queued time goes.
      const traced = round === 0 && TRACE_WAKEUPS && canTraceWakeups();
      if (traced) startWakeupTrace();
      const m = await arp.run(bound, ARP_RATE, count);
      if (traced) tracedWakeups.push(wakeupsOf(stopWakeupTrace(), ANSWER_THREAD_NAME));
      kernel.push(k.log);
      mlb.push(m.log);
      duplicates += m.duplicates + k.duplicates;
      for (const mac of Object.keys(m.repliers)) macs.add(mac);
      log(
        `ARP round ${round + 1}: kernel sent ${k.sent} at ${Math.round(k.achievedRate)}/s, mlb sent ${m.sent} at ${Math.round(m.achievedRate)}/s`,
      );
    }
    const stolen = stealPercent(cpusBefore, readCpuTimes());
    if (PIN) daemon.pin(`0-${CORES - 1}`);
    stealRow(row, 'during the ARP rounds', stolen);
    const afterArp = await scrapeAnswerTimes(daemon.host);
    answerTimesRow(row, `at ${ARP_RATE / 1_000}k req/s`, afterArp && answerTimesSince(afterArp, afterBinding));
    for (const wakeups of tracedWakeups) wakeupRow(row, 'at 10k req/s, round 1', wakeups);
    if (duplicates > 0 || [...macs].some((mac) => mac !== daemon.host.mac))
      log(`WARNING: ${duplicates} second replies; repliers for the VIPs: ${[...macs].join(', ')} (expected only ${daemon.host.mac})`);
    const partial = bound.length < size ? `${bound.length}/${size} VIPs bound, asked for those` : '';
    for (const r of arpTargetRows(String(size), `at ${ARP_RATE / 1_000}k req/s`, kernel, mlb, [partial, note].filter(Boolean).join('; ')))
      row(r.what, r.unit, r.measured, r.target);
  }

  // ---- edit: one service added -------------------------------------------------------------------------------
  await lookAgain();
  const added = vipOf(size);
  const editTarget = { max: FIXED_TARGETS.editToAnnouncedMs };
  const wroteAt = replaceFile(config, scaleConfig(size + 1));
  const onMlb0 = (async () => {
    while (Date.now() - wroteAt < limits.editMs) {
      if (await daemon.isBound(added)) return Date.now();
      await sleep(EDIT_LOOK_MS);
    }
    return undefined;
  })();
  const answered = arp
    .run([added], EDIT_ARP_RATE, Math.ceil((EDIT_ARP_RATE * limits.editMs) / 1_000), { untilReply: true, spin: false })
    .then((r) => firstAnswerAtMs(r.log));
  const [boundAt, answeredAt] = await Promise.all([onMlb0, answered]);
  const part = (at: number | undefined) => (at === undefined ? 'never' : ms(at - wroteAt));
  const editDetail = `on mlb0 ${part(boundAt)}, ARP answered ${part(answeredAt)}${note ? `; ${note}` : ''}`;
  row(
    'edit (one service added) -> announced',
    'ms',
    boundAt === undefined || answeredAt === undefined
      ? { kind: 'timeout', afterMs: limits.editMs, detail: editDetail }
      : value(Math.max(boundAt, answeredAt) - wroteAt, editDetail),
    editTarget,
  );

  // ---- reloads -----------------------------------------------------------------------------------------------
  const reloadsFrom = Date.now();
  const reloadTimes: string[] = [];
  let reloadsOk = true;
  for (let k = 1; k <= RELOADS && daemon.running; k++) {
    const before = daemon.countEvents('configLoaded');
    const at = replaceFile(config, scaleConfig(size + 1, `reload ${k}`));
    while (daemon.countEvents('configLoaded') === before && daemon.running && Date.now() - at < limits.reloadMs) await sleep(20);
    if (daemon.countEvents('configLoaded') === before) {
      reloadTimes.push(`#${k} > ${ms(limits.reloadMs)}`);
      reloadsOk = false;
      break;
    }
    reloadTimes.push(`#${k} ${ms(Date.now() - at)}`);
    await sleep(RELOAD_GAP_MS);
  }
  const reloadsTo = Date.now();
  log(`reloads (write -> configLoaded): ${reloadTimes.join(', ')}`);
  await sleep(SETTLE_AFTER_RELOADS_MS);
  const afterRss = daemon.rssMedian(Date.now() - SETTLED_WINDOW_MS);
  const reloadNote = [reloadsOk ? '' : `reload not loaded: ${reloadTimes.at(-1)}`, note].filter(Boolean).join('; ');
  row(`RSS peak during ${RELOADS} reloads`, 'bytes', value(daemon.rssMax(reloadsFrom, reloadsTo), reloadNote || undefined), rssTarget);
  // Flat: after the reloads, back within FLAT_RSS_GROWTH of where it settled before them (and under the target).
  const flatMax = settledRss === undefined ? targets.rssBytes : Math.min(targets.rssBytes, settledRss * (1 + FLAT_RSS_GROWTH));
  row(`RSS settled after ${RELOADS} reloads`, 'bytes', value(afterRss, reloadNote || undefined), {
    max: flatMax,
    text: `<= ${formatValue(targets.rssBytes, 'bytes')}, <= settled + ${FLAT_RSS_GROWTH * 100} %`,
  });
  row('RSS peak over the run', 'bytes', value(daemon.rssMax()), rssTarget);

  // ---- SIGTERM ----------------------------------------------------------------------------------------------
  if (!daemon.running) {
    row('SIGTERM -> exit', 'ms', { kind: 'failed', why: daemon.describeExit() }, { max: FIXED_TARGETS.stopMs });
    return;
  }
  const exitMs = await daemon.terminate(limits.stopMs);
  row(
    'SIGTERM -> exit',
    'ms',
    exitMs === undefined
      ? { kind: 'timeout', afterMs: limits.stopMs, detail: 'SIGKILLed, as systemd would' }
      : value(exitMs, note || undefined),
    { max: FIXED_TARGETS.stopMs },
  );
}
