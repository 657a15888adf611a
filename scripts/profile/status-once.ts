/**
 * Where `mlb status --once` spends its time against a daemon holding N layer-2 services (bench/scale's daemon and
 * file, in a namespace of its own): times the command over and over from the moment the control socket exists
 * until every VIP is bound ("right after start"), then STATUS_RUNS times on the settled daemon ("idle"), and the
 * size and time of the raw snapshot answers (the first page, every page) the command reads. Prints each figure
 * with the load average at the time.
 *
 *   npm run build && LAB_NETNS_PREFIX=hst node --import tsx scripts/profile/status-once.ts [services=10000]
 *   CLI_PROF=/tmp/p ...     the CLI runs under `node --cpu-prof`, profiles in /tmp/p/cli
 *   DAEMON_PROF=/tmp/p ...  the daemon under `node --cpu-prof`, its profile in /tmp/p/daemon (written on SIGTERM)
 *
 * Not a test and not the bench (bench/scale.bench.ts is): a profiling aid; root only (namespaces).
 */
import { request } from 'node:http';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { destroyLab, installCleanup, MLB_CLI, newLab, sleep, tempDir } from '../../bench/gossip/lab-nodes';
import { timeNode, type TimedRun } from '../../bench/scale/cli-runs';
import { NODE_VIP_SUBNET_ADDRESS, scaleConfig, vipsOf } from '../../bench/scale/scale-config';
import { ScaleDaemon } from '../../bench/scale/scale-daemon';
import { clockTicksPerSecond } from '../../bench/scale/proc-stat';

const services = Number(process.argv[2] ?? 10_000);
/** Idle runs: enough for a best and a median on a shared machine. */
const STATUS_RUNS = Number(process.env.STATUS_RUNS ?? 7);
/** A command that has not answered in this long is a failure, as in bench/scale (limitsFor statusMs). */
const STATUS_LIMIT_MS = 15_000;
/** Binding 10,000 VIPs takes tens of seconds on a quiet machine; past this the idle runs go ahead anyway. */
const BIND_LIMIT_MS = 150_000;
/** After the last VIP: the gratuitous ARPs go on for a few seconds (bench/scale's GRATUITOUS_QUIET_MS). */
const SETTLE_MS = 8_000;
/** Between runs during binding, so the commands do not take every core from the daemon they measure. */
const START_GAP_MS = 200;
const PAGE_LIMIT = 1_000;
/** Reads averaged for the daemon's CPU per read: /proc counts in clock ticks (10 ms). */
const DAEMON_CPU_READS = 20;

const cliProf = process.env.CLI_PROF ? join(process.env.CLI_PROF, 'cli') : undefined;
const daemonProf = process.env.DAEMON_PROF ? join(process.env.DAEMON_PROF, 'daemon') : undefined;
const load = () => loadavg()[0]!.toFixed(2);

function status(socket: string): Promise<TimedRun> {
  const prof = cliProf ? ['--cpu-prof', '--cpu-prof-dir', cliProf] : [];
  return timeNode([...prof, MLB_CLI, 'status', '--once', '--socket', socket], STATUS_LIMIT_MS);
}

/** One GET over the socket: its time (first byte to end) and size, as the CLI reads it. */
function get(socket: string, path: string): Promise<{ ms: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const at = performance.now();
    const req = request({ socketPath: socket, path, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ ms: performance.now() - at, bytes, status: res.statusCode ?? 0 }));
    });
    req.once('error', reject);
    req.end();
  });
}

async function rawPages(socket: string): Promise<string> {
  const first = await get(socket, `/v1/snapshot?offset=0&limit=${PAGE_LIMIT}`);
  let all = first.ms;
  let bytes = first.bytes;
  let pages = 1;
  for (let offset = PAGE_LIMIT; offset < services; offset += PAGE_LIMIT, pages++) {
    const page = await get(socket, `/v1/snapshot?offset=${offset}&limit=${PAGE_LIMIT}`);
    all += page.ms;
    bytes += page.bytes;
  }
  return `first page ${first.ms.toFixed(0)} ms ${(first.bytes / 1024).toFixed(0)} kB; ${pages} pages ${all.toFixed(0)} ms ${(bytes / 1024).toFixed(0)} kB`;
}

/** The daemon's CPU (utime+stime, ms) per answer over `count` GETs of `path`, and one answer's size. */
async function daemonCpuPer(daemon: ScaleDaemon, socket: string, paths: readonly string[], count: number): Promise<string> {
  const before = daemon.cpuTicks() ?? 0;
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < count; i++) {
    bytes = 0;
    for (const path of paths) {
      const answer = await get(socket, path);
      bytes += answer.bytes;
      status = answer.status;
    }
  }
  const ms = (((daemon.cpuTicks() ?? 0) - before) * 1000) / clockTicksPerSecond() / count;
  return `${paths.length === 1 ? paths[0] : `${paths.length} pages`}: status ${status}, ${(bytes / 1024).toFixed(0)} kB, daemon CPU ${ms.toFixed(1)} ms per read`;
}

const describe = (r: TimedRun) => (r.timedOut ? 'timeout' : r.code !== 0 ? `exit ${r.code}: ${r.stderrTail.split('\n').pop()}` : '');

installCleanup('status-once');
if (cliProf) mkdirSync(cliProf, { recursive: true });
if (daemonProf) mkdirSync(daemonProf, { recursive: true });
const lab = newLab();
try {
  const node = lab.addHost('node');
  lab.execIn(node, 'ip', ['addr', 'add', NODE_VIP_SUBNET_ADDRESS, 'dev', 'eth0']);
  const dir = tempDir('mlb-status-');
  const config = join(dir, 'mlb.yaml');
  writeFileSync(config, scaleConfig(services));
  const vips = new Set(vipsOf(services));
  console.log(`${services} services, load ${load()}`);
  // node refuses --cpu-prof in NODE_OPTIONS: a script that execs node with it stands in for the bundle.
  let bundle: string | undefined;
  if (daemonProf) {
    bundle = join(dir, 'mlb-profiled');
    writeFileSync(bundle, `#!/bin/sh\nexec ${process.execPath} --cpu-prof --cpu-prof-dir=${daemonProf} ${MLB_CLI} "$@"\n`, { mode: 0o755 });
  }
  const daemon = ScaleDaemon.start(node, config, dir, bundle);
  while (!existsSync(daemon.socket) && daemon.running) await sleep(20);
  console.log(`control socket after ${Date.now() - daemon.startedAt} ms`);
  let bound = 0;
  let looks = 0;
  while (bound < vips.size && Date.now() - daemon.startedAt < BIND_LIMIT_MS && daemon.running) {
    const at = Date.now() - daemon.startedAt;
    const r = await status(daemon.socket);
    if (looks++ % 3 === 0) bound = (await daemon.vipsBound()).filter((ip) => vips.has(ip)).length;
    console.log(`right after start (+${at} ms, ${bound} bound): ${r.ms.toFixed(0)} ms ${describe(r)} (load ${load()})`);
    await sleep(START_GAP_MS);
  }
  console.log(`bound ${bound}/${vips.size} after ${Date.now() - daemon.startedAt} ms`);
  await sleep(SETTLE_MS);
  const times: number[] = [];
  for (let i = 0; i < STATUS_RUNS; i++) {
    const r = await status(daemon.socket);
    times.push(r.ms);
    console.log(`idle: ${r.ms.toFixed(0)} ms, ${r.stdoutBytes} bytes printed ${describe(r)} (load ${load()})`);
  }
  times.sort((a, b) => a - b);
  console.log(`idle best ${times[0]!.toFixed(0)} ms, median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms (load ${load()})`);
  for (let i = 0; i < 3; i++) console.log(`raw: ${await rawPages(daemon.socket)} (load ${load()})`);
  const pages = Array.from(
    { length: Math.ceil(services / PAGE_LIMIT) },
    (_, i) => `/v1/snapshot?offset=${i * PAGE_LIMIT}&limit=${PAGE_LIMIT}`,
  );
  console.log(await daemonCpuPer(daemon, daemon.socket, ['/v1/status'], DAEMON_CPU_READS));
  console.log(await daemonCpuPer(daemon, daemon.socket, pages, DAEMON_CPU_READS));
  await daemon.terminate(15_000);
  if (daemonProf) console.log(`daemon profile in ${daemonProf}`);
  if (cliProf) console.log(`CLI profiles in ${cliProf}`);
} finally {
  destroyLab(lab);
}
