/**
 * The rules of `mlb check`, one situation at a time, on a snapshot of a healthy three-node cluster: what makes it
 * CRITICAL (a client cannot reach a service IP, or may reach the wrong host), what only WARNING (redundancy lost,
 * configuration not what the operator wrote), and the one line a monitoring system shows.
 */
import { describe, expect, it } from 'vitest';
import type { ControlSnapshot } from '../../../src/daemon/control';
import { CONTROL_API_VERSION } from '../../../src/daemon/control';
import { judgeSnapshot } from '../../../src/cli/check/check-verdict';
import { MAX_REASONS_ON_LINE, pluginExitCode, pluginOutput, unknownOutput } from '../../../src/cli/check/plugin-output';
import { exampleSnapshot } from '../../daemon/control/fake-daemon';

type Service = ControlSnapshot['services'][number];
type Member = ControlSnapshot['members'][number];

const AT = '2024-05-01T10:00:00.000Z';

function member(name: string, extra: Partial<Member> = {}): Member {
  return {
    name,
    addr: `10.0.0.${name.charCodeAt(name.length - 1) - 86}:7946`,
    state: 'alive',
    mlb: true,
    labels: {},
    draining: false,
    warmingUp: false,
    ...extra,
  };
}

function layer2(service: string, ip: string, owner: string | null, extra: Partial<Service> = {}): Service {
  return {
    service,
    ips: [ip],
    protocol: 'layer2',
    owner,
    announcing: owner ? [owner] : [],
    since: owner ? AT : null,
    health: { checked: false, passing: [], failing: [] },
    allocation: { status: 'ok' },
    candidates: [],
    ...extra,
  };
}

/** Three live mlb nodes, two services announced, one configuration everywhere. */
function healthy(): ControlSnapshot {
  return {
    apiVersion: CONTROL_API_VERSION,
    generatedAt: AT,
    node: {
      name: 'node-a',
      version: '0.1.0',
      startedAt: AT,
      draining: false,
      warmingUp: false,
      warmUpUntil: null,
      leaving: false,
      gossip: { bind: '10.0.0.11:7946', profile: 'fast', encrypted: true, healthScore: 0 },
    },
    config: { file: '/etc/mlb/mlb.yaml', state: 'ok', loadedAt: AT, errors: [] },
    members: [member('node-a'), member('node-b'), member('node-c')],
    mlbOnlyInputs: { allowed: true, reason: 'every live member is mlb' },
    allocation: { allocator: 'node-b', version: 3 },
    configAgreement: { digest: 'abc', services: 2, divergent: [], refused: [], awaiting: [], silent: [], retained: [], withheld: [] },
    services: [
      layer2('demo/web', '192.168.10.200', 'node-a'),
      { ...layer2('demo/api', '192.168.20.100', null), protocol: 'bgp', announcing: ['node-b', 'node-c'] },
    ],
    local: { announced: [{ ip: '192.168.10.200', interfaces: ['eth0'] }], bound: ['192.168.10.200'] },
    conflicts: [],
  };
}

const texts = (s: ControlSnapshot) => judgeSnapshot(s).reasons.map((r) => `${r.level}: ${r.text}`);

describe('judgeSnapshot', () => {
  it('is OK, with no reasons, when every IP is announced and every member alive', () => {
    expect(judgeSnapshot(healthy())).toEqual({ level: 'ok', reasons: [] });
  });

  it('is CRITICAL when nobody announces a layer 2 IP, naming the IP and every service sharing it', () => {
    const s = healthy();
    s.services = [layer2('demo/dns-tcp', '192.168.10.210', null), layer2('demo/dns-udp', '192.168.10.210', null), ...s.services];
    expect(judgeSnapshot(s).level).toBe('critical');
    expect(texts(s)).toEqual(['critical: 192.168.10.210 (demo/dns-tcp, demo/dns-udp) announced by nobody']);
  });

  it('is CRITICAL when no node announces a BGP IP, and names each of its IPs', () => {
    const s = healthy();
    s.services[1] = { ...s.services[1]!, ips: ['192.168.20.100', 'fd00:20::100'], announcing: [] };
    expect(texts(s)).toEqual([
      'critical: 192.168.20.100 (demo/api) announced by nobody',
      'critical: fd00:20::100 (demo/api) announced by nobody',
    ]);
  });

  it('is CRITICAL when a service has no IP because its allocation failed, and says why', () => {
    const s = healthy();
    s.services.push({
      ...layer2('demo/big', '', null),
      ips: [],
      allocation: { status: 'failed', message: 'no available IPs in pool "small"' },
    });
    expect(texts(s)).toEqual(['critical: demo/big has no IP: failed (no available IPs in pool "small")']);
  });

  it("only WARNS about a service waiting for the allocator's table, and ignores a service MetalLB skips", () => {
    const s = healthy();
    s.services.push({
      ...layer2('demo/new', '', null),
      ips: [],
      allocation: { status: 'waitingForAllocator', message: 'not in the allocation table yet' },
    });
    s.services.push({ ...layer2('other/class', '', null), ips: [], allocation: { status: 'skipped', message: 'loadBalancerClass other' } });
    expect(texts(s)).toEqual(['warning: demo/new has no IP yet: not in the allocation table yet']);
  });

  it('is CRITICAL on another MAC answering for a service IP, counting a pair seen by two nodes once', () => {
    const s = healthy();
    const conflict = {
      ip: '192.168.10.200',
      mac: '02:42:ac:11:00:99',
      node: null,
      interface: 'eth0',
      firstSeen: AT,
      lastSeen: AT,
      observedBy: 'node-a',
    };
    s.conflicts = [
      conflict,
      { ...conflict, interface: null, observedBy: 'node-b' },
      { ...conflict, mac: '02:42:ac:11:00:0b', node: 'node-b' },
    ];
    expect(texts(s)).toEqual([
      'critical: 192.168.10.200 also answered by 02:42:ac:11:00:99 (not a member), seen by node-b',
      'critical: 192.168.10.200 also answered by 02:42:ac:11:00:0b (node-b), seen by node-a',
    ]);
    expect(pluginOutput(judgeSnapshot(s), s, false)).toMatch(/ conflicts=2\n$/);
  });

  it('WARNS about suspect and dead members, not about one that left', () => {
    const s = healthy();
    s.members = [
      member('node-a'),
      member('node-b', { state: 'suspect' }),
      member('node-c', { state: 'dead' }),
      member('node-d', { state: 'left' }),
    ];
    expect(judgeSnapshot(s).level).toBe('warning');
    expect(texts(s)).toEqual(['warning: member node-b is suspect', 'warning: member node-c is dead']);
  });

  it('WARNS about this node draining, warming up or leaving, and about other live members draining or warming up', () => {
    const s = healthy();
    s.node = { ...s.node, draining: true, warmingUp: true, warmUpUntil: '2024-05-01T10:01:00.000Z', leaving: true };
    s.members = [
      member('node-a', { draining: true, warmingUp: true }),
      member('node-b', { draining: true }),
      member('node-c', { warmingUp: true }),
    ];
    expect(texts(s)).toEqual([
      'warning: node-a is draining (mlb undrain ends it)',
      'warning: node-a is warming up until 2024-05-01T10:01:00.000Z',
      'warning: node-a is leaving the cluster',
      'warning: node-b is draining',
      'warning: node-c is warming up',
    ]);
  });

  it("WARNS when this node's file was refused, another node's was, or the files differ", () => {
    const s = healthy();
    s.config = { ...s.config, state: 'stale', errors: ['/etc/mlb/mlb.yaml:12:7: invalid CIDR "10.0.0.300/32"'] };
    s.configAgreement = {
      ...s.configAgreement!,
      refused: [{ node: 'node-c', reason: 'mlb.yaml:3:1: unknown kind', message: 'node-c refused its file' }],
      divergent: [{ node: 'node-b', digest: 'def', services: 1, lacks: ['demo/api'], extra: 0, message: 'node-b lacks demo/api' }],
      retained: [{ service: 'demo/old', definedBy: ['node-b'] }],
    };
    expect(judgeSnapshot(s).level).toBe('warning');
    expect(texts(s)).toEqual([
      'warning: this node\'s configuration file is refused, the last good one runs: /etc/mlb/mlb.yaml:12:7: invalid CIDR "10.0.0.300/32"',
      'warning: configuration file refused on node-c: mlb.yaml:3:1: unknown kind',
      'warning: configuration differs on node-b (1 services vs 2)',
      "warning: demo/old still announced though this node's file no longer defines it",
    ]);
  });

  it('WARNS about a failing health check only where another node still holds the IP (nobody holding it is CRITICAL)', () => {
    const s = healthy();
    s.services[0] = { ...s.services[0]!, health: { checked: true, passing: ['node-a'], failing: ['node-b'] } };
    expect(texts(s)).toEqual(['warning: demo/web health check failing on node-b']);
    s.services[0] = {
      ...s.services[0]!,
      owner: null,
      announcing: [],
      health: { checked: true, passing: [], failing: ['node-a', 'node-b', 'node-c'] },
    };
    expect(texts(s)).toEqual(['critical: 192.168.10.200 (demo/web) announced by nobody']);
  });

  it('WARNS about a BGP session that is not Established and about BFD down', () => {
    const s = healthy();
    const session = {
      peer: 'tor',
      address: '10.0.0.1',
      phase: 'Established',
      establishedSince: AT,
      prefixes: 1,
      updatesSent: 1,
      bfd: 'up' as const,
      lastProblem: null,
    };
    s.bgp = [
      session,
      { ...session, peer: 'tor-2', address: '10.0.0.2', phase: 'Active', establishedSince: null, lastProblem: 'connection refused' },
      { ...session, peer: 'tor-3', bfd: 'down' },
    ];
    expect(texts(s)).toEqual([
      'warning: BGP peer tor-2 (10.0.0.2) is Active: connection refused',
      'warning: BFD with BGP peer tor-3 is down',
    ]);
  });

  it("lists critical reasons before warnings, whatever the snapshot's order", () => {
    const s = exampleSnapshot();
    const verdict = judgeSnapshot(s);
    expect(verdict.level).toBe('critical');
    const levels = verdict.reasons.map((r) => r.level);
    expect(levels).toEqual([...levels].sort());
    expect(texts(s)).toContain('critical: demo/nobody has no IP: poolExhausted (no available IPs in pool "small")');
    expect(texts(s)).toContain('warning: member node-d is dead');
  });
});

describe('plugin output', () => {
  it('says OK in one line with how many IPs are announced and members alive, perfdata after the bar', () => {
    const s = healthy();
    expect(pluginOutput(judgeSnapshot(s), s, false)).toBe(
      'MLB OK - 2 service IPs announced, 3/3 members alive | ips=2 unannounced=0 members_alive=3 members=3 conflicts=0\n',
    );
  });

  it('maps the levels to the monitoring-plugin exit codes 0, 1, 2 and 3', () => {
    expect(['ok', 'warning', 'critical', 'unknown'].map((l) => pluginExitCode(l as 'ok'))).toEqual([0, 1, 2, 3]);
  });

  it(`shows at most ${MAX_REASONS_ON_LINE} reasons on the status line; --verbose lists each after it`, () => {
    const s = healthy();
    s.services = ['1', '2', '3', '4', '5'].map((n) => layer2(`demo/s${n}`, `192.168.10.${n}`, null));
    const verdict = judgeSnapshot(s);
    const [line, ...rest] = pluginOutput(verdict, s, false).split('\n');
    expect(line).toBe(
      'MLB CRITICAL - 192.168.10.1 (demo/s1) announced by nobody; 192.168.10.2 (demo/s2) announced by nobody; ' +
        '192.168.10.3 (demo/s3) announced by nobody; and 2 more (--verbose lists them) | ips=5 unannounced=5 members_alive=3 members=3 conflicts=0',
    );
    expect(rest).toEqual(['']);
    const verbose = pluginOutput(verdict, s, true).split('\n');
    expect(verbose[0]).toBe(line);
    expect(verbose.slice(1, -1)).toEqual(
      ['1', '2', '3', '4', '5'].map((n) => `CRITICAL: 192.168.10.${n} (demo/s${n}) announced by nobody`),
    );
  });

  it('keeps a reason with a newline or a bar from breaking the status line or starting perfdata early', () => {
    const s = healthy();
    s.config = { ...s.config, state: 'stale', errors: ['mlb.yaml:1:1: a | b\nsecond line'] };
    const out = pluginOutput(judgeSnapshot(s), s, false);
    expect(out.split('\n')).toHaveLength(2);
    expect(out.split('|')).toHaveLength(2);
    expect(unknownOutput('no socket\nat all | really')).toBe('MLB UNKNOWN - no socket at all / really\n');
  });
});
