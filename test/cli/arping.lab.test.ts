/**
 * `mlb arping` end to end: the built bundle run inside a client namespace of a NetnsLab,
 * `ip netns exec CLIENT node dist/mlb.mjs arping ...`, against the Linux kernels of other lab hosts.
 * - one owner (a host's own eth0 address) exits 0 and names its MAC; IPv6 likewise through NDP;
 * - an address two hosts answer (the same /32 on both eth0, arp_ignore=0) exits 3 naming both MACs;
 * - silence exits 1; --json has the documented shape;
 * - no CAP_NET_RAW, or no native addon: exit 1 with the addon's message; usage errors exit 2.
 * Each test builds and destroys its own lab. Without root, namespaces or the addon the lab tests skip, saying
 * why; in CI (CI set) a missing addon fails. Time: about 12 s, mostly the probes' one-second spacing.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADDON_MISSING_MESSAGE, nativeAddonStatus } from '../../src/native';
import { canUseNetns, NetnsLab, type LabHost } from '../support/netns-lab';
import { MLB_BUNDLE, REPO_ROOT, runMlb } from './run-cli';

const addon = nativeAddonStatus();
const bundledAddon = join(REPO_ROOT, 'dist', 'mlb_native.node');
if ((!addon.loaded || !existsSync(bundledAddon)) && process.env.CI) {
  throw new Error(`${ADDON_MISSING_MESSAGE}: ${addon.loaded ? `${bundledAddon} is missing` : addon.why} (CI is set, so this is a failure)`);
}
const netns = canUseNetns();
const skipLab = !netns.ok
  ? netns.why
  : !addon.loaded
    ? `the native addon is not loaded (${addon.why})`
    : !existsSync(bundledAddon)
      ? `${bundledAddon} is missing (npm run build copies it)`
      : undefined;
if (skipLab) console.warn(`skipping the mlb arping lab tests: ${skipLab}`);

/** A second address both answerers hold, on the lab subnet but not any host's own. */
const SHARED_IP = '10.213.0.200';
const SILENT_IP = '10.213.0.99';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function arpingIn(host: LabHost, args: string[], prefix: string[] = [], bundle = MLB_BUNDLE): Run {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run "npm run build" first`);
  const r = spawnSync('ip', ['netns', 'exec', host.netns, ...prefix, process.execPath, bundle, 'arping', ...args], {
    encoding: 'utf8',
    cwd: REPO_ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function sysctl(host: LabHost, setting: string): void {
  spawnSync('ip', ['netns', 'exec', host.netns, 'sysctl', '-qw', setting], { stdio: 'ignore' });
}

/** The kernel answers ARP for any local address on any interface with arp_ignore=0 (the default, set to be sure). */
function addSharedAddress(host: LabHost): void {
  for (const scope of ['all', 'default', 'eth0']) sysctl(host, `net.ipv4.conf.${scope}.arp_ignore=0`);
  spawnSync('ip', ['-n', host.netns, 'addr', 'add', `${SHARED_IP}/32`, 'dev', 'eth0'], { stdio: 'ignore' });
}

let lab: NetnsLab | undefined;
afterEach(() => {
  lab?.destroy();
  lab = undefined;
});

function newLab(...names: string[]): LabHost[] {
  lab = new NetnsLab();
  return names.map((n) => (lab as NetnsLab).addHost(n));
}

describe.skipIf(skipLab !== undefined)('mlb arping in a lab (client, a = .2, b = .3)', () => {
  it('one owner: exits 0, each reply line names its MAC, the verdict says one owner', () => {
    const [client, a] = newLab('client', 'a') as [LabHost, LabHost];
    const run = arpingIn(client, ['-c', '2', a.ipv4]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`ARPING ${a.ipv4} from ${client.ipv4} [${client.mac}] eth0`);
    const replies = lines.filter((l) => l.startsWith('reply from'));
    expect(replies).toHaveLength(2);
    for (const l of replies) expect(l).toMatch(new RegExp(`^reply from ${a.ipv4} \\[${a.mac}\\] on eth0 \\d+\\.\\d{3} ms$`));
    expect(run.stdout).toContain('2 probe(s) sent, 2 reply(ies) from 1 MAC(s)');
    expect(run.stdout).toContain(`one owner: ${a.ipv4} is at ${a.mac}`);
  });

  it('an address two kernels answer for: exits 3, SPLIT BRAIN naming both MACs', () => {
    const [client, a, b] = newLab('client', 'a', 'b') as [LabHost, LabHost, LabHost];
    addSharedAddress(a);
    addSharedAddress(b);
    const run = arpingIn(client, ['-c', '2', SHARED_IP]);
    expect(run.status).toBe(3);
    const verdict = run.stdout.split('\n').find((l) => l.startsWith('SPLIT BRAIN'));
    expect(verdict).toMatch(new RegExp(`^SPLIT BRAIN: 2 MACs answer for ${SHARED_IP.replaceAll('.', '\\.')}: `));
    expect(verdict).toContain(a.mac);
    expect(verdict).toContain(b.mac);
    for (const host of [a, b]) expect(run.stdout).toMatch(new RegExp(`reply from ${SHARED_IP} \\[${host.mac}\\] on eth0`));
  });

  it('silence: exits 1 with "no reply"', () => {
    const [client] = newLab('client', 'a') as [LabHost, LabHost];
    const run = arpingIn(client, ['-c', '1', SILENT_IP]);
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain('reply from');
    expect(run.stdout).toContain(`no reply: nothing answered for ${SILENT_IP} on eth0 (1 probe(s))`);
  });

  it('IPv6: the kernel answers a Neighbor Solicitation for its own address; exits 0 with its MAC', () => {
    const [client, , b] = newLab('client', 'a', 'b') as [LabHost, LabHost, LabHost];
    const run = arpingIn(client, ['-c', '2', b.ipv6]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // From the link-local address, or the global one if the kernel has not made the link-local yet.
    expect(run.stdout.split('\n')[0]).toMatch(
      new RegExp(`^NDP \\(Neighbor Solicitation\\) ${b.ipv6} from (fe80::\\S+|${client.ipv6}) \\[${client.mac}\\] eth0$`),
    );
    expect(run.stdout).toMatch(new RegExp(`reply from ${b.ipv6} \\[${b.mac}\\] on eth0`));
    expect(run.stdout).toContain(`one owner: ${b.ipv6} is at ${b.mac}`);
  });

  it('--json: {ip, interface, sent, replies:[{mac, count, rttMs:{min,avg,max}}], verdict, exitCode}, and the same exit code', () => {
    const [client, a, b] = newLab('client', 'a', 'b') as [LabHost, LabHost, LabHost];
    addSharedAddress(a);
    addSharedAddress(b);
    const run = arpingIn(client, ['-I', 'eth0', '-c', '2', '--json', SHARED_IP]);
    expect(run.status).toBe(3);
    const doc = JSON.parse(run.stdout) as Record<string, unknown> & {
      replies: { mac: string; count: number; rttMs: Record<string, number> }[];
    };
    expect(Object.keys(doc)).toEqual(['ip', 'interface', 'sent', 'replies', 'verdict', 'exitCode']);
    expect(doc).toMatchObject({ ip: SHARED_IP, interface: 'eth0', sent: 2, verdict: 'splitBrain', exitCode: 3 });
    expect(doc.replies.map((r) => r.mac).sort()).toEqual([a.mac, b.mac]);
    for (const r of doc.replies) {
      expect(Object.keys(r)).toEqual(['mac', 'count', 'rttMs']);
      expect(r.count).toBeGreaterThanOrEqual(1);
      expect(Object.keys(r.rttMs)).toEqual(['min', 'avg', 'max']);
      expect(r.rttMs.min).toBeLessThanOrEqual(r.rttMs.avg as number);
      expect(r.rttMs.avg).toBeLessThanOrEqual(r.rttMs.max as number);
    }
  });

  it('-w caps the run: -c 5 -w 1 sends one probe', () => {
    const [client, a] = newLab('client', 'a') as [LabHost, LabHost];
    const run = arpingIn(client, ['-c', '5', '-w', '1', '--json', a.ipv4]);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ sent: 1, verdict: 'oneOwner', replies: [{ mac: a.mac, count: 1 }] });
  });

  it('without CAP_NET_RAW: exits 1 with the message that says what to grant', () => {
    const [client, a] = newLab('client', 'a') as [LabHost, LabHost];
    const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all'];
    const run = arpingIn(client, ['-c', '1', a.ipv4], nobody);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^mlb: opening an AF_PACKET socket needs CAP_NET_RAW: run as root or grant it \(setcap cap_net_raw\+ep/);
  });

  it('without the native addon: exits 1 with the addon message', () => {
    const [client, a] = newLab('client', 'a') as [LabHost, LabHost];
    // The bundle (its entry and the command parts beside it) in an empty directory finds no mlb_native.node beside
    // it or in ../build/Release.
    const dir = mkdtempSync(join(tmpdir(), 'mlb-arping-noaddon-'));
    try {
      const bundle = join(dir, 'mlb.mjs');
      for (const file of readdirSync(dirname(MLB_BUNDLE)).filter((f) => f.endsWith('.mjs')))
        copyFileSync(join(dirname(MLB_BUNDLE), file), join(dir, file));
      const run = arpingIn(client, ['-c', '1', a.ipv4], ['env', '-u', 'MLB_NATIVE_ADDON'], bundle);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`mlb: ${ADDON_MISSING_MESSAGE}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('mlb arping usage errors (exit 2, no socket needed)', () => {
  it.each([
    [['arping', 'not-an-ip'], /"not-an-ip" is not an IP address/],
    [['arping', '-c', '0', '10.0.0.1'], /-c\/--count takes a whole number of probes from 1 to 86400, not "0"/],
    [['arping', '-w', '1.5', '10.0.0.1'], /-w\/--deadline takes a whole number of seconds/],
    [['arping', '-I', 'no-such-if0', '10.0.0.1'], /no interface named "no-such-if0" here; Ethernet interfaces: /],
    [['arping'], /Not enough non-option arguments/],
  ])('mlb %j', (args, message) => {
    const run = runMlb(args);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
  });
});

describe('mlb arping --help', () => {
  it('is listed by mlb --help and explains its exit codes with examples', () => {
    expect(runMlb(['--help']).stdout).toContain('mlb arping <ip>');
    const run = runMlb(['arping', '--help']);
    expect(run.status).toBe(0);
    for (const text of [
      '-I, --interface',
      '-c, --count',
      '-w, --deadline',
      '--json',
      'Examples:',
      'mlb arping -I ens18 -c 10 192.168.10.200',
    ]) {
      expect(run.stdout).toContain(text);
    }
    expect(run.stdout.replace(/\s+/g, ' ')).toContain('Exit codes: 0 exactly one MAC answered (one owner); 1 no reply');
    expect(run.stdout.replace(/\s+/g, ' ')).toContain('3 several MACs answered: SPLIT BRAIN');
  });
});
