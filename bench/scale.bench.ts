// bench/scale: one `mlb daemon` (dist/mlb.mjs, what users run) holding 1,000 and 10,000 layer-2 services on a
// single node, measured from outside against the scale targets; prints `what | size | measured | target | ok`.
//
// Lab (per size): a NetnsLab with a client (10.213.0.1) and the node (10.213.0.2, plus 10.214.0.2/18, the VIPs'
// subnet) on one bridge; the daemon in the node's namespace reads a file of N Services, each pinned to its own VIP
// (bench/scale/scale-config.ts). bench/arp's generator in the client namespace sends the ARP requests. The daemon,
// the generator and every CLI command timed run in sessions of their own: with sched_autogroup, CPU time is shared
// between sessions first, and none of them should be measured on a slice of the bench's own share.
//
// Rows, in the order they are measured:
//   start -> every VIP bound: spawn to the first look at `ip -br addr show mlb0` listing all N (looks every
//     100 ms, 250 ms after 5 s: the figure is late by at most one look), with the ARP load of the next row;
//   ARP while binding: 1,000 requests/s for random VIPs from spawn until every VIP is bound (the generator paced
//     on a timer, not spinning, so it takes little CPU from the daemon); held to the targets are the requests for
//     a VIP a look had already shown bound when they left; in the same runs, a fifth of the requests ask for the
//     node kernel's own address: its p99 at the same moments is printed beside (information), since binding
//     keeps the kernel busy for everyone;
//   the kernel alone: `ip -batch` adding the same N addresses to a link of its own before the daemon starts, the
//     floor under the binding row (bench/scale/kernel-floor.ts), an information row;
//   `mlb status --once` right after start: as soon as the control socket exists (during binding);
//   RSS settled and idle CPU: after every VIP is bound and the gratuitous ARPs are over, utime+stime over
//     IDLE_SECONDS (/proc/PID/stat) and the median RSS of that window's last 5 s;
//   `mlb status --once` idle;
//   ARP p50 vs the kernel's, p99, lost: ARP_SECONDS at ARP_RATE requests/s for random VIPs, and as many for the
//     node kernel's own address (the physical reference, same sender, same path), ARP_ROUNDS rounds alternating;
//     beside them, as information, the daemon's own part of its answers while binding and in these rounds (its
//     answer thread's stages, read from its metrics endpoint: on in the bench, inside the node's namespace);
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
// SCALE_TRACE_WAKEUPS=1 (the kernel's scheduler events for the daemon's ARP answer thread while binding and in the
// first fixed-rate round: where its answers wait; scale/wakeup-trace.ts) LAB_NETNS_PREFIX=... (namespace names).
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { join } from 'node:path';
import type { LabHost } from '../test/support/netns-lab';
import { destroyLab, installCleanup, newLab, preflight, sleep, tempDir } from './gossip/lab-nodes';
import { kernelBindFloorMs } from './scale/kernel-floor';
import { ArpLoad, ARP_TIMEOUT_MS, type ArpRun } from './scale/arp-load';
import { referenceStats, slowAfterBound, whileBindingStats } from './scale/arp-samples';
import { bestOfInterleaved, describeEnd, timeMlb } from './scale/cli-runs';
import { NODE_VIP_SUBNET_ADDRESS, nodeNames, scaleConfig, vipsOf } from './scale/scale-config';
import { ScaleDaemon } from './scale/scale-daemon';
import {
  ARP_RATE,
  ARP_ROUNDS,
  ARP_SECONDS,
  BIND_LOOK_FAST_FOR_MS,
  BIND_LOOK_FAST_MS,
  BIND_LOOK_SLOW_MS,
  BINDING_ARP_CHUNK_S,
  BINDING_ARP_RATE,
  BINDING_REFERENCE_SHARE,
  SOON_AFTER_BOUND_MS,
  CORES,
  EXPLAIN_NODES,
  HELP_RUNS,
  HELP_TIMEOUT_MS,
  IDLE_MS,
  limitsFor,
  log,
  ms,
  PIN,
  SIZES,
  valueOrFailure,
} from './scale/scale-plan';
import {
  FIXED_TARGETS,
  formatMeasured,
  formatTable,
  formatValue,
  targetsFor,
  verdict,
  type Measured,
  type Row,
  type Unit,
} from './scale/scale-rows';
import { measureRunning, statusRow, stealRow, wakeupRow, type Binding } from './scale/settled-rows';
import { readCpuTimes, stealPercent } from './scale/proc-stat';
import { ANSWER_THREAD_NAME, canTraceWakeups, startWakeupTrace, stopWakeupTrace, TRACE_WAKEUPS, wakeupsOf } from './scale/wakeup-trace';

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

    // Before the daemon, not beside it: the two would share the kernel's time, and the daemon would see every
    // address of the other link come and go.
    const floorMs = kernelBindFloorMs(lab, node, vips, dir);

    // ---- start: binding, ARP while binding, status right after start -----------------------------------------
    const cpusAtStart = readCpuTimes();
    const tracingBinding = TRACE_WAKEUPS && canTraceWakeups();
    if (tracingBinding) startWakeupTrace();
    const daemon = ScaleDaemon.start(node, config, dir);
    let bindingOver = false;
    // The VIPs, then the kernel's own address repeated for BINDING_REFERENCE_SHARE of the picks (picks are uniform).
    const referenceCopies = Math.max(1, Math.round((vips.length * BINDING_REFERENCE_SHARE) / (1 - BINDING_REFERENCE_SHARE)));
    const bindingTargets = [...vips, ...new Array<string>(referenceCopies).fill(node.ipv4)];
    const bindingRate = Math.round(BINDING_ARP_RATE / (1 - BINDING_REFERENCE_SHARE));
    const bindingArp: ArpRun[] = [];
    const arpWhileBinding = (async () => {
      while (!bindingOver && daemon.running) {
        bindingArp.push(await arp.run(bindingTargets, bindingRate, bindingRate * BINDING_ARP_CHUNK_S, { spin: false }));
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
    const bindingWakeups = tracingBinding ? wakeupsOf(stopWakeupTrace(), ANSWER_THREAD_NAME) : undefined;
    const stolenWhileBinding = stealPercent(cpusAtStart, readCpuTimes());
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
    row('  the kernel alone: `ip -batch` adding the N addresses to a fresh link', 'ms', {
      kind: 'value',
      value: floorMs,
      detail: 'information: the floor under the row above',
    });
    log(`${status.what}: ${formatMeasured(status.measured, status.unit)}`);

    const boundAtOf = (i: number) => binding.boundAt.get(vips[i]!);
    const bindingLogs = bindingArp.map((r) => r.log);
    const wb = whileBindingStats(bindingLogs, boundAtOf, ARP_TIMEOUT_MS * 1_000, vips.length);
    const firstBoundMs = Math.min(...binding.boundAt.values());
    const reference = referenceStats(bindingLogs, vips.length, ARP_TIMEOUT_MS * 1_000, firstBoundMs);
    const late = slowAfterBound(
      bindingLogs,
      boundAtOf,
      { slowUs: FIXED_TARGETS.arpP99Us, soonMs: SOON_AFTER_BOUND_MS, timeoutUs: ARP_TIMEOUT_MS * 1_000 },
      vips.length,
    );
    const wbNote =
      `${wb.requests} requests for bound VIPs at ${BINDING_ARP_RATE}/s; ${wb.beforeBoundAnswered}/${wb.beforeBound} for unbound ones answered; ` +
      `${late.slow} over ${formatValue(FIXED_TARGETS.arpP99Us, 'us')}, ${late.soonAfterBound} of them sent within ${SOON_AFTER_BOUND_MS} ms of the look that saw their VIP bound`;
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
      const lostSoon =
        wb.lost > 0
          ? `; ${late.lostSoonAfterBound} of them sent within ${SOON_AFTER_BOUND_MS} ms of the look that saw their VIP bound`
          : '';
      lostRow(valueOrFailure(wb.lost, `of ${wb.requests}${lostSoon}`));
    }
    if (reference.requests > 0) {
      row("  the kernel's own address meanwhile: p99", 'us', {
        kind: 'value',
        value: reference.p99Us,
        detail: `information: p50 ${formatValue(reference.p50Us, 'us')}, lost ${reference.lost} of ${reference.requests}`,
      });
    }
    stealRow(row, 'while binding', stolenWhileBinding);
    if (bindingWakeups) wakeupRow(row, 'while binding', bindingWakeups);
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
  console.log(`\nscale bench, ${ms(performance.now() - began)} (load average now ${load} on ${CORES} cores; ${machineMemory()}):\n`);
  for (const line of formatTable(rows)) console.log(line);
  const missed = rows.filter((r) => verdict(r) === 'no').length;
  console.log(`\n${missed === 0 ? 'every target met' : `${missed} of ${rows.filter((r) => r.target).length} targets missed`}`);
  return missed === 0 ? 0 : 1;
}

/**
 * The machine's memory and the heap limit V8 derives from it: V8 sizes a process's heaps (its young generation
 * among them) from the machine's memory, so the RSS rows of two machines with different memory differ for the same
 * code.
 */
function machineMemory(): string {
  const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GB`;
  return `${gb(totalmem())} of memory, V8 heap limit ${gb(getHeapStatistics().heap_size_limit)}`;
}

process.exitCode = await main();
