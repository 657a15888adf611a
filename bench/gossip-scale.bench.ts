// bench/gossip-scale: mlb's gossip (memberlist-compatible SWIM) with N members (default 1,000) on virtual time,
// every packet encoded and decoded by the real codecs and carried as bytes by the virtual network (0.2 ms +-0.1 ms
// links), for the LAN and FAST profiles, against memberlist's formulas (memberlist-expectations.ts):
//   - join convergence: every node joins node 0 at the same instant (retrying a refused join as the daemon does);
//     virtual time until each knows every other;
//   - bytes/s and packets/s each node sends (UDP and TCP), over a quiet window after the join has settled;
//   - crash detection: one node crashes; virtual time until the first and the last survivor declare it dead;
//   - false positives under 5 % loss (each way, every link) over a fixed virtual span: suspicions each node
//     started itself of a live member (a rate), and dead declarations of live members (must be none);
//   - mlb's records at 10,000 services (the "mlbr" envelope): their encoded size against one packet's budget, and
//     what the gossip node does with a payload that does not fit (a 5-node check: no oversize datagram, delivery
//     by push/pull).
// Exits 1 on a false death, or a join, detection or delivery that never happens.
// Run: node --expose-gc bench/run.mjs gossip-scale. No root, no real network.
// BENCH_GOSSIP_SCALE_NODES=n (default 1000), BENCH_GOSSIP_SCALE_LOSS_S (virtual seconds at 5 % loss, default 120),
// BENCH_GOSSIP_SCALE_PROFILES=lan,fast, BENCH_GOSSIP_SCALE_SERVICES (default 10000), BENCH_GOSSIP_SCALE_SEED.
import { REJOIN_INTERVAL_MS } from '../src/daemon/cluster-membership';
import { loadavg } from 'node:os';
import { encodedSize } from '../src/gossip/swim/message-size';
import { FAST_CONFIG, LAN_CONFIG, type SwimConfig } from '../src/gossip/swim';
import { pushPullScale, retransmitLimit, suspicionParameters } from '../src/gossip/swim/config';
import { GossipWorld } from './gossip-scale/gossip-world';
import {
  firstDeadExpectation,
  joinExpectation,
  lastDeadExpectation,
  packetPayloadBudget,
  trafficBudget,
  type Interval,
} from './gossip-scale/memberlist-expectations';
import { recordsDelivery } from './gossip-scale/records-delivery';
import { allocationTableRecord, encodedRecordsBytes, healthReportRecord } from './gossip-scale/records-size';
import { failsBench, formatTable, formatValue, type Row } from './gossip-scale/scale-table';

const N = Number(process.env.BENCH_GOSSIP_SCALE_NODES ?? 1000);
const LOSS_SPAN_MS = Number(process.env.BENCH_GOSSIP_SCALE_LOSS_S ?? 120) * 1000;
const PROFILES = (process.env.BENCH_GOSSIP_SCALE_PROFILES ?? 'lan,fast').split(',');
const SERVICES = Number(process.env.BENCH_GOSSIP_SCALE_SERVICES ?? 10_000);
const SEED = Number(process.env.BENCH_GOSSIP_SCALE_SEED ?? 1);
/** 5 % random loss on every link, each way. */
const LOSS = 0.05;
/** After the join converged: queued alive messages drain before traffic is measured. */
const SETTLE_MS = 30_000;
/** The quiet window bytes and packets are averaged over. */
const TRAFFIC_WINDOW_MS = 30_000;
/** Give up on a detection after this many times the formula's upper bound. */
const DETECT_TIMEOUT_FACTOR = 3;
const PROFILE_CONFIGS: Readonly<Record<string, SwimConfig>> = { lan: LAN_CONFIG, fast: FAST_CONFIG };

const range = (i: Interval) => `${formatValue(i.low, 'ms')} .. ${formatValue(i.high, 'ms')}`;

/** A push/pull's table at n members as memberlist encodes it (names like node-0001, IPv4, empty meta). */
function pushPullBytes(n: number): number {
  const node = { name: 'node-0000', addr: new Uint8Array(4), port: 7946, incarnation: 1, state: 'alive' as const, vsn: new Uint8Array(6) };
  return encodedSize({ type: 'pushPull', join: false, nodes: Array.from({ length: n }, () => node), userState: new Uint8Array() } as never);
}

async function profileRows(profile: string, config: SwimConfig): Promise<Row[]> {
  const rows: Row[] = [];
  const wall = performance.now();
  const world = await GossipWorld.create({ n: N, config, seed: SEED });
  const log = (what: string) =>
    console.log(
      `  [${profile}] ${what} (virtual ${((world.net.now() - start) / 1000).toFixed(1)} s, wall ${((performance.now() - wall) / 1000).toFixed(1)} s)`,
    );
  const start = world.net.now();

  // Join convergence.
  const join = joinExpectation(config, N);
  world.joinAllToSeed();
  const joined = await world.net.runUntil(() => world.converged(), { timeoutMs: 2 * join.high });
  const joinMs = world.net.now() - start;
  log(joined ? 'converged' : 'did not converge');
  rows.push({
    profile,
    what: `join: ${N} nodes join one seed at once (a refused join retried every ${REJOIN_INTERVAL_MS / 1000} s: ${world.joinAttempts} attempts), until each knows all`,
    unit: 'ms',
    measured: joined ? { kind: 'value', value: joinMs } : { kind: 'never', afterMs: 2 * join.high },
    expectation: `gossip ${formatValue(join.low, 'ms')} (log${config.gossipNodes}(n) rounds); bound: next push/pull, pushPullScale = ${formatValue(join.high, 'ms')}`,
    max: join.high,
    fatal: true,
  });
  if (!joined) {
    await world.close();
    return rows;
  }

  // Traffic over a quiet window.
  await world.net.advance(SETTLE_MS);
  world.resetTraffic();
  await world.net.advance(TRAFFIC_WINDOW_MS);
  log('traffic measured');
  const seconds = TRAFFIC_WINDOW_MS / 1000;
  const traffic = world.traffic();
  const budget = trafficBudget(config, N, pushPullBytes(N));
  const bytes = traffic.map((t) => (t.udpBytes + t.tcpBytes) / seconds);
  const packets = traffic.map((t) => t.udpPackets / seconds);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ppScaled = pushPullScale(config.pushPullInterval, N);
  rows.push({
    profile,
    what: 'packets/s sent per node, mean (max)',
    unit: 'pkt/s',
    measured: { kind: 'value', value: mean(packets), detail: `max ${Math.max(...packets).toFixed(1)}` },
    expectation: `2/ProbeInterval + GossipNodes/GossipInterval = ${budget.packetsPerSecond.toFixed(1)} pkt/s`,
    max: budget.packetsPerSecond,
  });
  rows.push({
    profile,
    what: 'bytes/s sent per node (UDP + TCP), mean (max)',
    unit: 'B/s',
    measured: { kind: 'value', value: mean(bytes), detail: `max ${formatValue(Math.max(...bytes), 'B/s')}` },
    expectation: `packets x UDPBufferSize ${config.udpBufferSize} + 2 push/pull of ${formatValue(pushPullBytes(N), 'bytes')} per ${formatValue(ppScaled, 'ms')} = ${formatValue(budget.bytesPerSecond, 'B/s')}`,
    max: budget.bytesPerSecond,
  });

  // Crash detection.
  const victimIndex = 1 + Math.floor(N / 2);
  const crashAt = world.net.now();
  const victim = world.crash(victimIndex);
  const last = lastDeadExpectation(config, N);
  const first = firstDeadExpectation(config, N);
  const detected = await world.net.runUntil(() => world.deathsOf(victim).size >= N - 1, { timeoutMs: DETECT_TIMEOUT_FACTOR * last.high });
  log(detected ? 'crash detected everywhere' : 'crash not detected everywhere');
  const times = [...world.deathsOf(victim).values()].map((t) => t - crashAt);
  const { min, max, k } = suspicionParameters(config, N);
  rows.push({
    profile,
    what: 'crash -> first survivor declares it dead',
    unit: 'ms',
    measured:
      times.length > 0 ? { kind: 'value', value: Math.min(...times) } : { kind: 'never', afterMs: DETECT_TIMEOUT_FACTOR * last.high },
    expectation: `P x (h+1) + suspicion (min ${formatValue(min, 'ms')}, max ${formatValue(max, 'ms')}, k ${k}): ${range(first)}`,
    max: first.high,
    fatal: true,
  });
  rows.push({
    profile,
    what: 'crash -> last survivor declares it dead',
    unit: 'ms',
    measured: detected
      ? { kind: 'value', value: Math.max(...times) }
      : { kind: 'never', afterMs: DETECT_TIMEOUT_FACTOR * last.high, detail: `${times.length}/${N - 1} survivors` },
    expectation: `first + retransmitLimit ${retransmitLimit(config.retransmitMult, N)} x GossipInterval: ${range(last)}`,
    max: last.high,
    fatal: true,
  });

  // False positives under loss.
  world.net.setLink({ loss: LOSS });
  const suspicionsBefore = world.ownSuspicions.length;
  const falseBefore = world.falseDeaths();
  await world.net.advance(LOSS_SPAN_MS);
  world.net.setLink({ loss: 0 });
  log('loss span done');
  const suspicions = world.ownSuspicions.slice(suspicionsBefore).filter((s) => world.isLive(s.of)).length;
  const nodeMinutes = ((N - 1) * LOSS_SPAN_MS) / 60_000;
  rows.push({
    profile,
    what: `${LOSS * 100} % loss, ${formatValue(LOSS_SPAN_MS, 'ms')}: suspicions of live nodes per node-minute`,
    unit: 'rate',
    measured: { kind: 'value', value: suspicions / nodeMinutes, detail: `${suspicions} started` },
    expectation: `information (a failed probe needs ping, ${config.indirectChecks} indirect paths and the TCP ping all lost)`,
  });
  rows.push({
    profile,
    what: `${LOSS * 100} % loss: live nodes declared dead (declarations)`,
    unit: 'count',
    measured: { kind: 'value', value: world.falseDeaths() - falseBefore },
    expectation: 'none: a suspicion is refuted (alive, incarnation + 1) before its timer ends',
    max: 0,
    fatal: true,
  });
  log(`done (${((performance.now() - wall) / 1000).toFixed(0)} s wall)`);
  await world.close();
  return rows;
}

async function recordsRows(): Promise<Row[]> {
  const budget = packetPayloadBudget(LAN_CONFIG);
  const table = encodedRecordsBytes(allocationTableRecord(SERVICES));
  const health = encodedRecordsBytes(healthReportRecord(SERVICES));
  const rows: Row[] = [
    {
      profile: 'records',
      what: `allocation table record, ${SERVICES} services (mlbr envelope)`,
      unit: 'bytes',
      measured: { kind: 'value', value: table.length },
      expectation: `one gossip packet: <= ${budget} B (UDPBufferSize ${LAN_CONFIG.udpBufferSize} less headers); else push/pull only`,
      max: budget,
    },
    {
      profile: 'records',
      what: `health report record, ${SERVICES} services`,
      unit: 'bytes',
      measured: { kind: 'value', value: health.length },
      expectation: `<= ${budget} B to travel by gossip`,
      max: budget,
    },
  ];
  const timeout = 8 * LAN_CONFIG.pushPullInterval;
  const delivery = await recordsDelivery(LAN_CONFIG, table, timeout, SEED);
  rows.push(
    {
      profile: 'records',
      what: `largest datagram while the ${formatValue(table.length, 'bytes')} table is broadcast (5 nodes)`,
      unit: 'bytes',
      measured: { kind: 'value', value: delivery.largestDatagram, detail: `${delivery.byBroadcast} got it by UDP gossip` },
      expectation: `never above UDPBufferSize ${LAN_CONFIG.udpBufferSize}: an oversize broadcast is not sent`,
      max: LAN_CONFIG.udpBufferSize,
      fatal: true,
    },
    {
      profile: 'records',
      what: 'the table reaches every member by push/pull',
      unit: 'ms',
      measured:
        delivery.allByPushPullMs === undefined ? { kind: 'never', afterMs: timeout } : { kind: 'value', value: delivery.allByPushPullMs },
      expectation: `anti-entropy: each holder push/pulls a random member every ${formatValue(LAN_CONFIG.pushPullInterval, 'ms')}; a few intervals`,
      max: 4 * LAN_CONFIG.pushPullInterval,
      fatal: true,
    },
  );
  return rows;
}

async function main(): Promise<void> {
  const wall = performance.now();
  console.log(`gossip-scale: ${N} nodes, profiles ${PROFILES.join(', ')}, ${LOSS_SPAN_MS / 1000} s at ${LOSS * 100} % loss, seed ${SEED}`);
  const rows: Row[] = [];
  for (const profile of PROFILES) {
    const config = PROFILE_CONFIGS[profile];
    if (!config) throw new Error(`unknown profile ${profile} (lan, fast)`);
    rows.push(...(await profileRows(profile, config)));
  }
  rows.push(...(await recordsRows()));
  console.log('');
  for (const line of formatTable(rows)) console.log(line);
  const load = loadavg().map((l) => l.toFixed(2));
  console.log(`\nwall clock ${((performance.now() - wall) / 1000).toFixed(0)} s; load average ${load.join(' ')}`);
  const failed = rows.filter(failsBench);
  if (failed.length > 0) {
    console.error(`gossip-scale: ${failed.map((r) => `${r.profile}: ${r.what}`).join('; ')}`);
    process.exit(1);
  }
  process.exit(0);
}

await main();
