/**
 * What a settled, idle `mlb daemon` costs: the daemon from dist/mlb.mjs with a file of N layer-2 services
 * (bench/scale's file), in a namespace of its own; once every VIP is on mlb0 and the gratuitous ARPs are over
 * (bench/scale's GRATUITOUS_QUIET_MS), its utime+stime over IDLE_MS (bench/scale's idle CPU row, alone and
 * quicker), per thread (the main thread, and V8's compiler and GC workers). PROFILE_DIR=dir runs it under
 * `node --cpu-prof` and prints the idle window on the monotonic clock the profile's timestamps use (µs), to cut
 * the profile to it.
 *
 *   npm run build && node --import tsx scripts/profile/daemon-idle.ts [services=1000]
 *
 * Not a test and not the bench: a profiling aid; root only (namespaces).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOSSIP_PORT, REPO_ROOT, sleep } from '../../bench/gossip/lab-nodes';
import { clockTicksPerSecond, parseCpuTicks } from '../../bench/scale/proc-stat';
import { GRATUITOUS_QUIET_MS, IDLE_MS } from '../../bench/scale/scale-plan';
import { NODE_VIP_SUBNET_ADDRESS, scaleConfig } from '../../bench/scale/scale-config';
import { NetnsLab } from '../../test/support/netns-lab';

const services = Number(process.argv[2] ?? 1_000);
const profileDir = process.env.PROFILE_DIR;
/** Give up when the VIPs are not all bound by then. */
const BIND_LIMIT_MS = 180_000;
const BIND_POLL_MS = 200;

/** utime+stime of each thread of `pid`, in clock ticks, by thread id. */
function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const value = parseCpuTicks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      if (value !== undefined) ticks.set(tid, value);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ticks;
}

const lab = new NetnsLab();
const dir = mkdtempSync(join(tmpdir(), 'mlb-idle-'));
try {
  const node = lab.addHost('node');
  lab.execIn(node, 'ip', ['addr', 'add', NODE_VIP_SUBNET_ADDRESS, 'dev', 'eth0']);
  const config = join(dir, 'mlb.yaml');
  writeFileSync(config, scaleConfig(services));
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const child = spawn(
    'ip',
    [
      ...['netns', 'exec', node.netns, 'setsid', process.execPath, ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])],
      ...[join(REPO_ROOT, 'dist/mlb.mjs'), 'daemon', '--config', config, '--node-name', 'node'],
      ...['--gossip-bind', `${node.ipv4}:${GOSSIP_PORT}`, '--state-dir', join(dir, 'state'), '--control-socket', join(dir, 'mlb.sock')],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const bound = (): number => {
    try {
      return Number(lab.execIn(node, 'sh', ['-c', 'ip -4 -o addr show dev mlb0 | wc -l']).trim());
    } catch {
      return 0;
    }
  };
  const t0 = Date.now();
  while (bound() < services) {
    if (Date.now() - t0 > BIND_LIMIT_MS) throw new Error(`not every VIP bound within ${BIND_LIMIT_MS} ms`);
    await sleep(BIND_POLL_MS);
  }
  console.log(`${services} VIPs bound ${Date.now() - t0} ms after start`);
  await sleep(GRATUITOUS_QUIET_MS);
  // `ip netns exec` and setsid exec in place: the child's pid is the daemon's.
  const pid = child.pid!;
  const before = threadTicks(pid);
  const from = process.hrtime.bigint();
  await sleep(IDLE_MS);
  const to = process.hrtime.bigint();
  const after = threadTicks(pid);
  const hz = clockTicksPerSecond();
  const seconds = Number(to - from) / 1e9;
  let total = 0;
  for (const [tid, ticks] of after) {
    const used = ticks - (before.get(tid) ?? 0);
    total += used;
    if (used > 0) console.log(`  thread ${tid}${tid === String(pid) ? ' (main)' : ''}: ${used} ticks`);
  }
  console.log(
    `idle CPU over ${seconds.toFixed(1)} s: ${((100 * total) / hz / seconds).toFixed(2)} % of a core (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
  if (profileDir) console.log(`idle window on the profile's clock (µs): ${from / 1000n} ${to / 1000n}`);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  if (profileDir)
    console.log(
      `profile: ${readdirSync(profileDir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(profileDir, f))
        .join(' ')}`,
    );
} finally {
  lab.destroy();
  rmSync(dir, { recursive: true, force: true });
}
