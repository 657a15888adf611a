/**
 * Where the real daemon spends its time at scale: `mlb daemon` from dist/mlb.mjs, in a namespace of its own, with
 * a file of N layer-2 services (bench/scale's file), run under `node --cpu-prof`. Prints, from this process's clock:
 * start -> every VIP on mlb0, then one service added to the file -> its VIP on mlb0, the daemon's RSS after each,
 * and leaves the CPU profile of the whole run (open it in Chrome DevTools or speedscope) in PROFILE_DIR.
 *
 *   npm run build && node --import tsx scripts/profile/daemon-start.ts [services=10000]
 *   PROFILE_DIR=/tmp/prof node --import tsx scripts/profile/daemon-start.ts 10000
 *   HEAP_SNAPSHOT=1 ...   also writes a heap snapshot of the settled daemon into PROFILE_DIR (what its RSS holds)
 *
 *   NO_CPU_PROFILE=1 HOLD_MS=40000 NODE_FLAGS="--max-semi-space-size=2" ...   no profiler, RSS every 10 s while held,
 *   with more node flags (what a flag does to the settled RSS)
 *   DAEMON_LOG=/tmp/d.log NODE_FLAGS=--trace-gc ...   the daemon's stdout kept: its log and V8's GC lines
 *
 * Not a test and not the bench (bench/scale.bench.ts is): a profiling aid; root only (namespaces).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOSSIP_PORT, REPO_ROOT, sleep } from '../../bench/gossip/lab-nodes';
import { NODE_VIP_SUBNET_ADDRESS, scaleConfig, vipOf } from '../../bench/scale/scale-config';
import { NetnsLab } from '../../test/support/netns-lab';

const services = Number(process.argv[2] ?? 10_000);
const profileDir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'mlb-prof-'));
/** Give up on a step after this long: a profile of a slow step is still written. */
const STEP_LIMIT_MS = 120_000;
const heapSnapshot = process.env.HEAP_SNAPSHOT === '1';
/** NO_CPU_PROFILE=1: run without the profiler (its overhead off the figures); NODE_FLAGS: more flags for node. */
const noCpuProfile = process.env.NO_CPU_PROFILE === '1';
const nodeFlags = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** Writing a heap snapshot of a few hundred MB takes seconds. */
const SNAPSHOT_WAIT_MS = 60_000;
/** While holding, the daemon's RSS is printed this often (does it come down once idle?). */
const HOLD_RSS_EVERY_MS = 10_000;

/** The daemon's memory by mapping (`MAPPINGS=1`): which part of its RSS is V8's heap, malloc, code, the addon. */
function largestMappings(pid: number): string {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    .split('\n')
    .filter((l) => /^(Rss|Anonymous|Private_Dirty)/.test(l));
  const maps: { head: string; rssKb: number }[] = [];
  let head = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) head = line;
    else if (line.startsWith('Rss:')) maps.push({ head, rssKb: Number(line.split(/\s+/)[1]) });
  }
  maps.sort((a, b) => b.rssKb - a.rssKb);
  const sizeOf = (h: string) => {
    const [from, to] = h
      .split(' ')[0]!
      .split('-')
      .map((x) => parseInt(x, 16));
    return ((to! - from!) / 1048576).toFixed(0);
  };
  const top = maps
    .slice(0, 12)
    .map(
      (m) =>
        `${String(Math.round(m.rssKb / 1024)).padStart(5)} MB rss of ${sizeOf(m.head).padStart(5)} MB  ${m.head.split(/\s+/).slice(5).join(' ') || '[anon]'}`,
    );
  return [...rollup, `mappings: ${maps.length}`, ...top].join('\n');
}

const lab = new NetnsLab();
const dir = mkdtempSync(join(tmpdir(), 'mlb-start-'));
try {
  const node = lab.addHost('node');
  lab.execIn(node, 'ip', ['addr', 'add', NODE_VIP_SUBNET_ADDRESS, 'dev', 'eth0']);
  const config = join(dir, 'mlb.yaml');
  writeFileSync(config, scaleConfig(services));
  mkdirSync(profileDir, { recursive: true });
  const t0 = Date.now();
  const child = spawn(
    'ip',
    [
      ...['netns', 'exec', node.netns, 'setsid', process.execPath],
      ...(noCpuProfile ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir]),
      ...nodeFlags,
      ...(heapSnapshot ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${profileDir}`] : []),
      ...[join(REPO_ROOT, 'dist/mlb.mjs'), 'daemon', '--config', config, '--node-name', 'node'],
      ...['--gossip-bind', `${node.ipv4}:${GOSSIP_PORT}`, '--state-dir', join(dir, 'state'), '--control-socket', join(dir, 'mlb.sock')],
    ],
    // DAEMON_LOG=file: the daemon's stdout (its JSON log, and V8's --trace-gc lines with NODE_FLAGS=--trace-gc).
    { stdio: ['ignore', process.env.DAEMON_LOG ? openSync(process.env.DAEMON_LOG, 'w') : 'ignore', 'inherit'] },
  );
  const boundCount = () => {
    try {
      return Number(lab.execIn(node, 'sh', ['-c', 'ip -4 -o addr show dev mlb0 | wc -l']).trim());
    } catch {
      return 0;
    }
  };
  const isBound = (vip: string) => lab.execIn(node, 'ip', ['-4', '-o', 'addr', 'show', 'dev', 'mlb0', 'to', `${vip}/32`]).trim() !== '';
  const rssMb = () => {
    // `ip netns exec` and setsid exec in place: the child's pid is the daemon's.
    const line = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS'));
    return (Number(line?.split(/\s+/)[1]) / 1024).toFixed(0);
  };
  const until = async (what: string, done: () => boolean, from: number) => {
    while (!done()) {
      if (Date.now() - from > STEP_LIMIT_MS) throw new Error(`${what}: not within ${STEP_LIMIT_MS} ms`);
      await sleep(50);
    }
    console.log(`${what}: ${Date.now() - from} ms, RSS ${rssMb()} MB`);
  };
  await until(`start -> ${services} VIPs on mlb0`, () => boundCount() >= services, t0);
  await sleep(3_000);
  console.log(`settled 3 s later: RSS ${rssMb()} MB`);
  if (process.env.MAPPINGS === '1') console.log(largestMappings(child.pid!));
  // HOLD_MS: time to point other tools at the settled daemon (its control socket is printed).
  if (process.env.HOLD_MS) {
    console.log(`holding for ${process.env.HOLD_MS} ms: control socket ${join(dir, 'mlb.sock')}`);
    const holdUntil = Date.now() + Number(process.env.HOLD_MS);
    while (Date.now() < holdUntil) {
      await sleep(Math.min(HOLD_RSS_EVERY_MS, holdUntil - Date.now()));
      console.log(`  held ${Math.round((Date.now() - holdUntil + Number(process.env.HOLD_MS)) / 1000)} s: RSS ${rssMb()} MB`);
    }
  }
  if (heapSnapshot) {
    child.kill('SIGUSR2');
    const written = () => readdirSync(profileDir).some((f) => f.endsWith('.heapsnapshot'));
    await until('heap snapshot written', written, Date.now());
    await sleep(SNAPSHOT_WAIT_MS / 20);
  }
  const t1 = Date.now();
  writeFileSync(config, scaleConfig(services + 1));
  await until('one service added -> its VIP on mlb0', () => isBound(vipOf(services)), t1);
  await sleep(2_000);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  console.log(`profile: ${join(profileDir, readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))[0] ?? '(none)')}`);
} finally {
  lab.destroy();
  rmSync(dir, { recursive: true, force: true });
}
