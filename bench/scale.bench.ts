// bench/scale: one `mlb daemon` (dist/mlb.mjs, what users run) holding 1,000 and 10,000 layer-2 services on a
// single node, measured from outside against the scale targets; prints `what | size | measured | target | ok`.
//
// Lab (per size): a NetnsLab with a client (10.213.0.1) and the node (10.213.0.2, plus 10.214.0.2/18, the VIPs'
// subnet) on one bridge; the daemon in the node's namespace reads a file of N Services, each pinned to its own VIP
// (bench/scale/scale-config.ts). bench/arp's generator in the client namespace sends the ARP requests.
//
// Rows, in the order they are measured:
//   start -> every VIP bound: spawn to the first look at `ip -br addr show mlb0` listing all N (looks every
//     100 ms, 250 ms after 5 s: the figure is late by at most one look), with the ARP load of the next row;
//   ARP while binding: 1,000 requests/s for random VIPs from spawn until every VIP is bound (the generator paced
//     on a timer, not spinning, so it takes little CPU from the daemon); held to the targets are the requests for
//     a VIP a look had already shown bound when they left;
//   `mlb status --once` right after start: as soon as the control socket exists (during binding);
//   RSS settled and idle CPU: after every VIP is bound and the gratuitous ARPs are over, utime+stime over
//     IDLE_SECONDS (/proc/PID/stat) and the median RSS of that window's last 5 s;
//   `mlb status --once` idle;
//   ARP p50 vs the kernel's, p99, lost: ARP_SECONDS at ARP_RATE requests/s for random VIPs, and as many for the
//     node kernel's own address (the physical reference, same sender, same path), ARP_ROUNDS rounds alternating;
//   edit -> announced: one Service added to the file (written atomically), to its VIP on mlb0 and answered by ARP
//     (requests at 1,000/s until the first answer); the later of the two;
//   RSS peak during 3 reloads, RSS settled after them: the file rewritten 3 times (a comment changed, so the
//     text differs), each waited for (configLoaded) and RELOAD_GAP_MS beyond, then SETTLE_AFTER_RELOADS_MS;
//   RSS peak over the whole run (sampled every 200 ms);
//   SIGTERM -> exit;
//   `mlb explain --config F --nodes <1,000 names>` (the daemon gone): time, peak RSS, bytes printed.
// Once, after the sizes: `mlb --help` against `node -e 0`, best of HELP_RUNS each, interleaved.
//
// Every row has a time limit (limitsFor): past it the row reads "> N s (timeout)" and the bench goes on. When
// binding does not finish in time, the rows after it are still measured, marked "(still binding: n/N bound)".
// With every row at its limit the whole bench takes about 10.5 minutes at both sizes; 1,000 alone about 4.
// Exits 1 when a target is missed, 2 without root, netns or a build. Namespaces, daemons and every process
// started are removed on exit, Ctrl-C, SIGTERM or an error (bench/gossip/lab-nodes.ts installCleanup).
// Run: npm run bench scale (root). SCALE_SIZES=1000,10000  SCALE_IDLE_SECONDS=30  SCALE_ARP_RATE=10000
// SCALE_PIN=0,1 (the generator's CPU; the daemon's during the fixed-rate ARP runs only, as bench/arp pins them:
// elsewhere it runs where the scheduler puts it, as it would on a host; off: nothing pinned)
// LAB_NETNS_PREFIX=... (namespace names).
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { LabHost } from '../test/support/netns-lab';
import { destroyLab, installCleanup, newLab, preflight, sleep, tempDir } from './gossip/lab-nodes';
import { ArpLoad, ARP_TIMEOUT_MS, type ArpRun } from './scale/arp-load';
import { arpStats, firstAnswerAtMs, whileBindingStats, type RequestLog } from './scale/arp-samples';
import { bestOfInterleaved, describeEnd, timeMlb } from './scale/cli-runs';
import { clockTicksPerSecond } from './scale/proc-stat';
import {
  FIXED_TARGETS,
  FLAT_RSS_GROWTH,
  formatMeasured,
  formatTable,
  formatValue,
  targetsFor,
  verdict,
  type Measured,
  type Row,
  type Unit,
} from './scale/scale-rows';
import { NODE_VIP_SUBNET_ADDRESS, nodeNames, scaleConfig, vipOf, vipsOf } from './scale/scale-config';
import { ScaleDaemon } from './scale/scale-daemon';

const SIZES = (process.env.SCALE_SIZES ?? '1000,10000').split(',').map(Number);
const IDLE_MS = Number(process.env.SCALE_IDLE_SECONDS ?? 30) * 1_000;
/** The issue's rate for the latency targets. */
const ARP_RATE = Number(process.env.SCALE_ARP_RATE ?? 10_000);
const ARP_SECONDS = 3;
const ARP_ROUNDS = 2;
/**
 * While binding: binding lasts minutes at 10,000 today, and every request is recorded; 1,000/s keeps that record
 * a few MB and is the rate the scale issue first measured it at.
 */
const BINDING_ARP_RATE = 1_000;
/** One generator run of the while-binding load; the next starts after its last reply's timeout. */
const BINDING_ARP_CHUNK_S = 2;
/** Requests/s while waiting for an added VIP's first answer: 1 ms of resolution. */
const EDIT_ARP_RATE = 1_000;
const RELOADS = 3;
/** After a reload's configLoaded the daemon recomputes and reconciles; this lets that finish before the next. */
const RELOAD_GAP_MS = 2_000;
/** Time for the reloads' garbage to be collected before "settled after reloads" is sampled (its last 5 s). */
const SETTLE_AFTER_RELOADS_MS = 10_000;
const SETTLED_WINDOW_MS = 5_000;
/** The gratuitous schedule (a burst, then every 1.1 s until 5 s after the change) is over by then. */
const GRATUITOUS_QUIET_MS = 5_600;
const EXPLAIN_NODES = 1_000;
const HELP_RUNS = 10;
const HELP_TIMEOUT_MS = 10_000;
/** Binding looks: every 100 ms for the first 5 s (the targets are 1 s and 3 s), every 250 ms after. */
const BIND_LOOK_FAST_MS = 100;
const BIND_LOOK_SLOW_MS = 250;
const BIND_LOOK_FAST_FOR_MS = 5_000;
/** Each look at 10,000 addresses costs `ip` a full dump: 50 ms keeps that cost small at a tenth of the target. */
const EDIT_LOOK_MS = 50;

/** Each row's time limit at a size: a row that takes minutes on some build is cut there, not waited for. */
function limitsFor(size: number) {
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

const CORES = cpus().length;
const PIN_SPEC = process.env.SCALE_PIN ?? (CORES >= 2 ? '0,1' : 'off');
const PIN = PIN_SPEC === 'off' ? undefined : (PIN_SPEC.split(',').map(Number) as [number, number]);

const log = (text: string) => console.log(`  ${text}`);
const ms = (value: number) => formatValue(value, 'ms');

function valueOrFailure(v: number | undefined, detail?: string): Measured {
  if (v === undefined || !Number.isFinite(v)) return { kind: 'failed', why: `no value${detail ? ` (${detail})` : ''}` };
  return detail ? { kind: 'value', value: v, detail } : { kind: 'value', value: v };
}

/** What a size's run learned about binding: when each VIP was first seen on mlb0. */
interface Binding {
  readonly boundAt: Map<string, number>;
  readonly doneMs: number | undefined;
}

async function watchBinding(daemon: ScaleDaemon, vips: readonly string[], limitMs: number): Promise<Binding> {
  const boundAt = new Map<string, number>();
  const wanted = new Set(vips);
  for (;;) {
    const seen = await daemon.vipsBound();
    const at = Date.now();
    for (const ip of seen) if (wanted.has(ip) && !boundAt.has(ip)) boundAt.set(ip, at);
    const elapsed = at - daemon.startedAt;
    if (boundAt.size === wanted.size) return { boundAt, doneMs: elapsed };
    if (elapsed >= limitMs || !daemon.running) return { boundAt, doneMs: undefined };
    await sleep(elapsed < BIND_LOOK_FAST_FOR_MS ? BIND_LOOK_FAST_MS : BIND_LOOK_SLOW_MS);
  }
}

async function waitForSocket(daemon: ScaleDaemon, limitMs: number): Promise<boolean> {
  while (!existsSync(daemon.socket)) {
    if (!daemon.running || Date.now() - daemon.startedAt > limitMs) return false;
    await sleep(20);
  }
  return true;
}

async function statusRow(daemon: ScaleDaemon, what: string, size: string, limitMs: number, note: string): Promise<Row> {
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
  return [
    {
      what: `ARP p50 / kernel's ${label}`,
      size,
      unit: 'ratio',
      measured: valueOrFailure(m.p50Us / k.p50Us, `${formatValue(m.p50Us, 'us')} vs ${formatValue(k.p50Us, 'us')}${suffix}`),
      target: { max: FIXED_TARGETS.arpP50Ratio, text: `<= ${FIXED_TARGETS.arpP50Ratio}x` },
    },
    {
      what: `ARP p99 ${label}`,
      size,
      unit: 'us',
      measured: valueOrFailure(m.p99Us, `kernel ${formatValue(k.p99Us, 'us')}${suffix}`),
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

async function measureSize(size: number): Promise<Row[]> {
  const S = String(size);
  const limits = limitsFor(size);
  const targets = targetsFor(size);
  const rows: Row[] = [];
  const row = (what: string, unit: Unit, measured: Measured, target?: Row['target']) => {
    const r: Row = target ? { what, size: S, unit, measured, target } : { what, size: S, unit, measured };
    rows.push(r);
    log(`${what}: ${formatMeasured(measured, unit)}`);
  };
  const rssTarget = { max: targets.rssBytes };
  console.log(`\n--- ${size} services (load average ${loadavg()[0]!.toFixed(2)}, ${CORES} cores)`);

  const lab = newLab();
  try {
    const client = lab.addHost('client');
    const node: LabHost = lab.addHost('node');
    lab.execIn(node, 'ip', ['addr', 'add', NODE_VIP_SUBNET_ADDRESS, 'dev', 'eth0']);
    const dir = tempDir('mlb-scale-');
    const config = join(dir, 'mlb.yaml');
    const vips = vipsOf(size);
    writeFileSync(config, scaleConfig(size));
    const arp = await ArpLoad.start(lab, client, PIN?.[0]);

    // ---- start: binding, ARP while binding, status right after start -----------------------------------------
    const daemon = ScaleDaemon.start(node, config, dir);
    let bindingOver = false;
    const bindingArp: ArpRun[] = [];
    const arpWhileBinding = (async () => {
      while (!bindingOver && daemon.running) {
        bindingArp.push(await arp.run(vips, BINDING_ARP_RATE, BINDING_ARP_RATE * BINDING_ARP_CHUNK_S, { spin: false }));
      }
    })();
    const statusAfterStart = (async () => {
      if (!(await waitForSocket(daemon, limits.bindMs)))
        return {
          what: '`mlb status --once` right after start',
          size: S,
          unit: 'ms',
          measured: { kind: 'failed', why: 'no control socket' },
        } as Row;
      return statusRow(daemon, '`mlb status --once` right after start', S, limits.statusMs, 'during binding');
    })();
    const binding = await watchBinding(daemon, vips, limits.bindMs);
    bindingOver = true;
    await arpWhileBinding;
    const bound = binding.boundAt.size;
    const underLoad = `with ARP for them at ${BINDING_ARP_RATE}/s`;
    const stillBinding = binding.doneMs === undefined ? `still binding: ${bound}/${size} bound` : '';
    if (binding.doneMs !== undefined)
      row('start -> every VIP bound on mlb0', 'ms', valueOrFailure(binding.doneMs, underLoad), { max: targets.bindMs });
    else if (!daemon.running)
      row('start -> every VIP bound on mlb0', 'ms', { kind: 'failed', why: daemon.describeExit() }, { max: targets.bindMs });
    else
      row(
        'start -> every VIP bound on mlb0',
        'ms',
        { kind: 'timeout', afterMs: limits.bindMs, detail: `${bound}/${size} bound, ${underLoad}` },
        { max: targets.bindMs },
      );
    rows.push(await statusAfterStart);
    const status = rows[rows.length - 1]!;
    log(`${status.what}: ${formatMeasured(status.measured, status.unit)}`);

    const boundAtOf = (i: number) => binding.boundAt.get(vips[i]!);
    const wb = whileBindingStats(
      bindingArp.map((r) => r.log),
      boundAtOf,
      ARP_TIMEOUT_MS * 1_000,
    );
    const wbNote = `${wb.requests} requests for bound VIPs at ${BINDING_ARP_RATE}/s; ${wb.beforeBoundAnswered}/${wb.beforeBound} for unbound ones answered`;
    const lostRow = (measured: Measured) => row('ARP lost while binding', 'count', measured, { max: FIXED_TARGETS.arpLost });
    if (wb.requests === 0) {
      const why = `no request for a VIP already bound (${wbNote})`;
      row('ARP p99 while binding', 'us', { kind: 'skipped', why }, { max: FIXED_TARGETS.arpP99Us });
      lostRow({ kind: 'skipped', why: 'no request for a VIP already bound' });
    } else {
      const p99: Measured =
        wb.answered === 0
          ? { kind: 'failed', why: `none answered (${wbNote})` }
          : valueOrFailure(wb.p99Us, `p50 ${formatValue(wb.p50Us, 'us')}; ${wbNote}`);
      row('ARP p99 while binding', 'us', p99, { max: FIXED_TARGETS.arpP99Us });
      lostRow(valueOrFailure(wb.lost, `of ${wb.requests}`));
    }
    if (!daemon.running) {
      const why = daemon.describeExit();
      for (const what of ['RSS after settling', 'idle CPU', 'ARP', 'edit -> announced', 'reloads', 'SIGTERM -> exit'])
        row(what, 'count', { kind: 'skipped', why });
    } else {
      await measureRunning(size, daemon, arp, binding, stillBinding, config, row, rssTarget);
    }
    arp.stop();
  } finally {
    destroyLab(lab);
  }

  // ---- explain, offline, with the daemon gone ---------------------------------------------------------------
  const dir = tempDir('mlb-scale-explain-');
  const file = join(dir, 'mlb.yaml');
  writeFileSync(file, scaleConfig(size));
  const what = `\`mlb explain --config F --nodes <${EXPLAIN_NODES}>\``;
  const e = await timeMlb(['explain', '--config', file, '--nodes', nodeNames(EXPLAIN_NODES).join(',')], limits.explainMs, true);
  const printed = `${formatValue(e.stdoutBytes, 'bytes')} printed`;
  const peak = e.peakRssBytes === undefined ? 'peak RSS unknown' : `peak RSS ${formatValue(e.peakRssBytes, 'bytes')}`;
  // "Completes" is its time's verdict: a run that did not finish or failed is never met, however fast.
  const explainTime: Measured = e.timedOut
    ? { kind: 'timeout', afterMs: limits.explainMs, detail: `${peak}, ${printed}` }
    : e.code !== 0
      ? { kind: 'failed', why: `${describeEnd(e)} after ${ms(e.ms)}, ${peak}` }
      : valueOrFailure(e.ms, printed);
  row(`${what} time`, 'ms', explainTime, { max: limits.explainMs, text: 'completes' });
  row(`${what} peak RSS`, 'bytes', valueOrFailure(e.peakRssBytes, e.code === 0 ? undefined : describeEnd(e)), {
    max: targets.rssBytes,
    text: `<= ${formatValue(targets.rssBytes, 'bytes')} (bounded)`,
  });
  return rows;
}

type AddRow = (what: string, unit: Unit, measured: Measured, target?: Row['target']) => void;

/** The rows measured on a daemon that is up (whether or not it finished binding). */
async function measureRunning(
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
  const note = stillBinding;
  /** A value, or why there is none when the daemon died under the bench. */
  const value = (v: number | undefined, detail?: string): Measured =>
    v === undefined && !daemon.running ? { kind: 'failed', why: daemon.describeExit() } : valueOrFailure(v, detail);

  // ---- settled: RSS and idle CPU ----------------------------------------------------------------------------
  await sleep(GRATUITOUS_QUIET_MS);
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
  const bound = [...binding.boundAt.keys()];
  if (bound.length === 0) {
    for (const what of ['ARP p50 / kernel', 'ARP p99', 'ARP lost']) row(what, 'count', { kind: 'skipped', why: 'no VIP bound' });
  } else {
    const kernel: RequestLog[] = [];
    const mlb: RequestLog[] = [];
    const count = ARP_RATE * ARP_SECONDS;
    let duplicates = 0;
    const macs = new Set<string>();
    if (PIN) daemon.pin(String(PIN[1]));
    for (let round = 0; round < ARP_ROUNDS; round++) {
      const k = await arp.run([daemon.host.ipv4], ARP_RATE, count);
      const m = await arp.run(bound, ARP_RATE, count);
      kernel.push(k.log);
      mlb.push(m.log);
      duplicates += m.duplicates + k.duplicates;
      for (const mac of Object.keys(m.repliers)) macs.add(mac);
      log(
        `ARP round ${round + 1}: kernel sent ${k.sent} at ${Math.round(k.achievedRate)}/s, mlb sent ${m.sent} at ${Math.round(m.achievedRate)}/s`,
      );
    }
    if (PIN) daemon.pin(`0-${CORES - 1}`);
    if (duplicates > 0 || [...macs].some((mac) => mac !== daemon.host.mac))
      log(`WARNING: ${duplicates} second replies; repliers for the VIPs: ${[...macs].join(', ')} (expected only ${daemon.host.mac})`);
    const partial = bound.length < size ? `${bound.length}/${size} VIPs bound, asked for those` : '';
    for (const r of arpTargetRows(String(size), `at ${ARP_RATE / 1_000}k req/s`, kernel, mlb, [partial, note].filter(Boolean).join('; ')))
      row(r.what, r.unit, r.measured, r.target);
  }

  // ---- edit: one service added -------------------------------------------------------------------------------
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

async function helpRow(): Promise<Row> {
  const what = '`mlb --help` / `node -e 0` (best of ' + HELP_RUNS + ')';
  const { best, failed } = await bestOfInterleaved(
    HELP_RUNS,
    [
      [join('dist', 'mlb.mjs'), '--help'],
      ['-e', '0'],
    ],
    HELP_TIMEOUT_MS,
  );
  const target = { max: FIXED_TARGETS.helpRatio, text: `<= ${FIXED_TARGETS.helpRatio}x` };
  if (failed) return { what, size: '-', unit: 'ratio', measured: { kind: 'failed', why: failed }, target };
  const [help, node] = best as [number, number];
  return { what, size: '-', unit: 'ratio', measured: valueOrFailure(help / node, `${ms(help)} vs ${ms(node)}`), target };
}

async function main(): Promise<number> {
  preflight('bench/scale');
  installCleanup('bench/scale');
  if (SIZES.some((s) => !Number.isInteger(s) || s < 1)) {
    console.error(`bench/scale: SCALE_SIZES must be positive integers: ${process.env.SCALE_SIZES}`);
    return 2;
  }
  console.log(
    `scale: one mlb daemon, single node, layer 2, sizes ${SIZES.join(', ')}; ARP ${ARP_RATE}/s x ${ARP_SECONDS} s x ${ARP_ROUNDS} rounds; ` +
      `idle ${IDLE_MS / 1_000} s; ${PIN ? `generator on CPU ${PIN[0]}, daemon on CPU ${PIN[1]} during the fixed-rate ARP runs` : 'unpinned'}; node ${process.version}`,
  );
  const rows: Row[] = [];
  const began = performance.now();
  for (const size of SIZES) {
    const from = performance.now();
    rows.push(...(await measureSize(size)));
    log(`(${size} services: ${ms(performance.now() - from)})`);
  }
  rows.push(await helpRow());
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(`\nscale bench, ${ms(performance.now() - began)} (load average now ${load} on ${CORES} cores):\n`);
  for (const line of formatTable(rows)) console.log(line);
  const missed = rows.filter((r) => verdict(r) === 'no').length;
  console.log(`\n${missed === 0 ? 'every target met' : `${missed} of ${rows.filter((r) => r.target).length} targets missed`}`);
  return missed === 0 ? 0 : 1;
}

process.exitCode = await main();
