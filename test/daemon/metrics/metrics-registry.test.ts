/**
 * The metrics a scrape shows, from a fake daemon: MetalLB's names and labels exactly (the names
 * MetalLB v0.14 registers), mlb's own, absent series for parts that do not run, and the owner-change metrics fed by the
 * daemon's events. Every page is read by a strict parser of the text format.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { increment, L2Counters } from '../../../src/announce/l2/l2-counters';
import { DecisionTiming } from '../../../src/daemon/decision-timing';
import { countDrop, emptyCounters } from '../../../src/gossip/gossip-stats';
import { parseIP, type IP } from '../../../src/ip';
import { createMetricsRegistry, poolMetrics, type MetricsRegistry } from '../../../src/daemon/metrics';
import { pool } from '../../allocator/factories';
import { parseExposition, samplesOf, valueOf, type Exposition } from './exposition';
import { FakeSource, member, service } from './fake-source';

const open: MetricsRegistry[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.close();
});

function registryOf(source: FakeSource): MetricsRegistry {
  const r = createMetricsRegistry(source);
  open.push(r);
  return r;
}

async function scrape(r: MetricsRegistry): Promise<Exposition> {
  return parseExposition(await r.render());
}

const ip = (text: string): IP => parseIP(text)!;
const labelSets = (expo: Exposition, name: string) => samplesOf(expo, name).map((s) => s.labels);

describe('MetalLB metrics', () => {
  it('metallb_speaker_announced: one series per service and IP this node announces, gone once withdrawn', async () => {
    const source = new FakeSource();
    source.current = {
      ...source.current,
      services: [
        service({ service: 'demo/web', ips: ['192.168.1.240'], owner: 'node-a', announcing: ['node-a'] }),
        // Two services sharing one IP (allow-shared-ip): MetalLB reports each.
        service({ service: 'demo/dns-tcp', ips: ['192.168.1.241'], owner: 'node-a', announcing: ['node-a'] }),
        service({ service: 'demo/dns-udp', ips: ['192.168.1.241'], owner: 'node-a', announcing: ['node-a'] }),
        service({ service: 'demo/other', ips: ['192.168.1.242'], owner: 'node-b', announcing: ['node-b'] }),
        service({ service: 'demo/routed', ips: ['10.9.0.1', 'fd00:9::1'], protocol: 'bgp', announcing: ['node-a', 'node-b'] }),
        service({ service: 'demo/elsewhere', ips: ['10.9.0.2'], protocol: 'bgp', announcing: ['node-b'] }),
      ],
      local: {
        announced: [
          { ip: '192.168.1.240', interfaces: ['eth0'] },
          { ip: '192.168.1.241', interfaces: ['eth0'] },
        ],
        bound: [],
      },
    };
    const r = registryOf(source);
    const expo = await scrape(r);
    expect(expo.type.get('metallb_speaker_announced')).toBe('gauge');
    expect(samplesOf(expo, 'metallb_speaker_announced')).toEqual([
      {
        name: 'metallb_speaker_announced',
        labels: { service: 'demo/web', protocol: 'layer2', node: 'node-a', ip: '192.168.1.240' },
        value: 1,
      },
      {
        name: 'metallb_speaker_announced',
        labels: { service: 'demo/dns-tcp', protocol: 'layer2', node: 'node-a', ip: '192.168.1.241' },
        value: 1,
      },
      {
        name: 'metallb_speaker_announced',
        labels: { service: 'demo/dns-udp', protocol: 'layer2', node: 'node-a', ip: '192.168.1.241' },
        value: 1,
      },
      { name: 'metallb_speaker_announced', labels: { service: 'demo/routed', protocol: 'bgp', node: 'node-a', ip: '10.9.0.1' }, value: 1 },
      { name: 'metallb_speaker_announced', labels: { service: 'demo/routed', protocol: 'bgp', node: 'node-a', ip: 'fd00:9::1' }, value: 1 },
    ]);

    source.current = { ...source.current, local: { announced: [{ ip: '192.168.1.241', interfaces: ['eth0'] }], bound: [] } };
    const after = await scrape(r);
    expect(samplesOf(after, 'metallb_speaker_announced', { protocol: 'layer2' }).map((s) => s.labels.service)).toEqual([
      'demo/dns-tcp',
      'demo/dns-udp',
    ]);
  });

  it('the layer2 counters per IP, as the L2 announcer counts them', async () => {
    const counters = new L2Counters();
    for (let i = 0; i < 3; i++) increment(counters.requestsReceived, '192.168.1.240');
    increment(counters.requestsReceived, 'fd00:9::1');
    increment(counters.responsesSent, '192.168.1.240');
    for (let i = 0; i < 5; i++) increment(counters.gratuitousSent, '192.168.1.240');
    const source = new FakeSource();
    source.counters = { layer2: counters.metrics() };
    const expo = await scrape(registryOf(source));
    for (const name of ['metallb_layer2_requests_received', 'metallb_layer2_responses_sent', 'metallb_layer2_gratuitous_sent']) {
      expect(expo.type.get(name)).toBe('counter');
      for (const labels of labelSets(expo, name)) expect(Object.keys(labels)).toEqual(['ip']);
    }
    expect(valueOf(expo, 'metallb_layer2_requests_received', { ip: '192.168.1.240' })).toBe(3);
    expect(valueOf(expo, 'metallb_layer2_requests_received', { ip: 'fd00:9::1' })).toBe(1);
    expect(valueOf(expo, 'metallb_layer2_responses_sent', { ip: '192.168.1.240' })).toBe(1);
    expect(valueOf(expo, 'metallb_layer2_gratuitous_sent', { ip: '192.168.1.240' })).toBe(5);
    expect(valueOf(expo, 'metallb_layer2_gratuitous_sent', { ip: 'fd00:9::1' })).toBeUndefined();
  });

  it('the allocator gauges per pool: a shared address counts once, each family apart', async () => {
    const pools = [pool('default', ['192.168.1.240/29', 'fd00:9::/126']), pool('spare', ['10.1.0.0/30'])];
    const addresses = new Map([
      ['demo/web', { ips: [ip('192.168.1.240')], pool: 'default' }],
      ['demo/dns-tcp', { ips: [ip('192.168.1.241')], pool: 'default' }],
      ['demo/dns-udp', { ips: [ip('192.168.1.241')], pool: 'default' }],
      ['demo/dual', { ips: [ip('192.168.1.242'), ip('fd00:9::1')], pool: 'default' }],
      ['demo/orphan', { ips: [ip('172.16.0.1')], pool: 'deleted-pool' }],
    ]);
    const source = new FakeSource();
    source.counters = { pools: poolMetrics(pools, addresses) };
    const expo = await scrape(registryOf(source));
    const of = (name: string, p: string) => valueOf(expo, name, { pool: p });
    expect(of('metallb_allocator_addresses_total', 'default')).toBe(12);
    expect(of('metallb_allocator_ipv4_addresses_total', 'default')).toBe(8);
    expect(of('metallb_allocator_ipv6_addresses_total', 'default')).toBe(4);
    expect(of('metallb_allocator_addresses_in_use_total', 'default')).toBe(4);
    expect(of('metallb_allocator_ipv4_addresses_in_use_total', 'default')).toBe(3);
    expect(of('metallb_allocator_ipv6_addresses_in_use_total', 'default')).toBe(1);
    expect(of('metallb_allocator_services_allocated_total', 'default')).toBe(4);
    expect(of('metallb_allocator_addresses_total', 'spare')).toBe(4);
    expect(of('metallb_allocator_addresses_in_use_total', 'spare')).toBe(0);
    expect(samplesOf(expo, 'metallb_allocator_addresses_total').map((s) => s.labels.pool)).toEqual(['default', 'spare']);
  });

  it('the configuration gauges follow a good load and a stale edit', async () => {
    const source = new FakeSource();
    const r = registryOf(source);
    let expo = await scrape(r);
    expect(valueOf(expo, 'metallb_k8s_client_config_loaded_bool')).toBe(1);
    expect(valueOf(expo, 'metallb_k8s_client_config_stale_bool')).toBe(0);
    expect(valueOf(expo, 'mlb_config_last_reload_success_timestamp_seconds')).toBe(Date.parse('2024-05-01T09:00:01.500Z') / 1000);

    source.current = { ...source.current, config: { ...source.current.config, state: 'stale', errors: ['mlb.yaml:3:1: bad'] } };
    expo = await scrape(r);
    expect(valueOf(expo, 'metallb_k8s_client_config_stale_bool')).toBe(1);
    expect(valueOf(expo, 'metallb_k8s_client_config_loaded_bool')).toBe(1);

    source.current = { ...source.current, config: { file: 'x', state: 'ok', loadedAt: null, errors: [] } };
    expo = await scrape(r);
    expect(valueOf(expo, 'metallb_k8s_client_config_loaded_bool')).toBe(0);
    expect(valueOf(expo, 'mlb_config_last_reload_success_timestamp_seconds')).toBeUndefined();
  });
});

describe('mlb metrics', () => {
  it("members by state (every state present), announcing nodes per service, this node's health verdicts", async () => {
    const source = new FakeSource();
    source.current = {
      ...source.current,
      members: [member('node-a', 'alive'), member('node-b', 'alive'), member('node-c', 'suspect'), member('node-d', 'dead')],
      services: [
        service({
          service: 'demo/web',
          ips: ['192.168.1.240'],
          owner: 'node-b',
          announcing: ['node-b'],
          health: { checked: true, passing: ['node-a', 'node-b'], failing: [] },
        }),
        service({ service: 'demo/api', ips: ['192.168.1.243'], health: { checked: true, passing: ['node-b'], failing: ['node-a'] } }),
        service({
          service: 'demo/new',
          ips: ['192.168.1.244'],
          owner: 'node-b',
          announcing: ['node-b'],
          health: { checked: true, passing: ['node-b'], failing: [] },
        }),
        service({ service: 'demo/nobody', ips: [], allocation: { status: 'failed', message: 'no available IPs' } }),
        service({ service: 'demo/routed', ips: ['10.9.0.1'], protocol: 'bgp', announcing: ['node-a', 'node-b'] }),
      ],
    };
    const expo = await scrape(registryOf(source));
    expect(samplesOf(expo, 'mlb_gossip_members').map((s) => [s.labels.state, s.value])).toEqual([
      ['alive', 2],
      ['suspect', 1],
      ['dead', 1],
      ['left', 0],
    ]);
    expect(valueOf(expo, 'mlb_service_announcing_nodes', { service: 'demo/web', protocol: 'layer2' })).toBe(1);
    expect(valueOf(expo, 'mlb_service_announcing_nodes', { service: 'demo/api', protocol: 'layer2' })).toBe(0);
    expect(valueOf(expo, 'mlb_service_announcing_nodes', { service: 'demo/nobody', protocol: 'layer2' })).toBe(0);
    expect(valueOf(expo, 'mlb_service_announcing_nodes', { service: 'demo/routed', protocol: 'bgp' })).toBe(2);
    expect(valueOf(expo, 'mlb_health_check_passing', { service: 'demo/web' })).toBe(1);
    expect(valueOf(expo, 'mlb_health_check_passing', { service: 'demo/api' })).toBe(0);
    // No verdict from this node yet, or no check at all: no series rather than a made-up 0.
    expect(valueOf(expo, 'mlb_health_check_passing', { service: 'demo/new' })).toBeUndefined();
    expect(valueOf(expo, 'mlb_health_check_passing', { service: 'demo/routed' })).toBeUndefined();
    expect(valueOf(expo, 'mlb_build_info', { version: '1.2.3' })).toBe(1);
    expect(valueOf(expo, 'mlb_node_draining')).toBe(0);
  });

  it('conflicts, self-check probes and drops by reason, from the counters the daemon keeps', async () => {
    const gossip = emptyCounters();
    gossip.packetsReceived = 40;
    gossip.packetsSent = 38;
    countDrop(gossip, 'decryptFailed');
    countDrop(gossip, 'decryptFailed');
    countDrop(gossip, 'badMsgpack');
    const source = new FakeSource();
    source.current = {
      ...source.current,
      conflicts: [
        {
          ip: '192.168.1.240',
          mac: '02:00:00:00:00:99',
          node: null,
          interface: 'eth0',
          firstSeen: 'x',
          lastSeen: 'y',
          observedBy: 'node-a',
        },
      ],
    };
    source.counters = {
      gossip,
      gossipRecordDrops: { notOurs: 0, badHealthReport: 1, badTable: 0 },
      layer2Drops: { truncated: 4 },
      layer2SendFailures: 2,
      selfCheck: { probesSent: 12, probesFailed: 1, conflictSightings: 5, conflictsDetected: 3, active: 1, expectedAnswers: 4 },
    };
    const expo = await scrape(registryOf(source));
    expect(valueOf(expo, 'mlb_conflicts_active')).toBe(1);
    expect(valueOf(expo, 'mlb_conflicts_detected_total')).toBe(3);
    expect(valueOf(expo, 'mlb_self_check_expected_answers_total')).toBe(4);
    expect(valueOf(expo, 'mlb_self_check_probes_total', { result: 'sent' })).toBe(12);
    expect(valueOf(expo, 'mlb_self_check_probes_total', { result: 'failed' })).toBe(1);
    expect(samplesOf(expo, 'mlb_gossip_drops_total').map((s) => [s.labels.reason, s.value])).toEqual([
      ['badMsgpack', 1],
      ['decryptFailed', 2],
    ]);
    expect(valueOf(expo, 'mlb_gossip_packets_total', { direction: 'received' })).toBe(40);
    expect(valueOf(expo, 'mlb_gossip_record_drops_total', { reason: 'badHealthReport' })).toBe(1);
    expect(valueOf(expo, 'mlb_layer2_drops_total', { reason: 'truncated' })).toBe(4);
    expect(valueOf(expo, 'mlb_layer2_send_failures_total')).toBe(2);
    expect(expo.type.get('mlb_gossip_drops_total')).toBe('counter');
  });

  it('counts the live members whose configuration differs, and the services this node retains', async () => {
    const source = new FakeSource();
    source.current = {
      ...source.current,
      configAgreement: {
        digest: '0011223344556677',
        services: 3,
        awaiting: [],
        silent: [],
        withheld: [],
        divergent: [{ node: 'node-b', digest: '8899aabbccddeeff', services: 2, lacks: ['demo/web'], extra: 0, message: '' }],
        retained: [{ service: 'demo/db', definedBy: ['node-b'] }],
      },
    };
    const expo = await scrape(registryOf(source));
    expect(valueOf(expo, 'mlb_config_divergent_nodes')).toBe(1);
    expect(valueOf(expo, 'mlb_config_retained_services')).toBe(1);
    expect(samplesOf(await scrape(registryOf(new FakeSource())), 'mlb_config_divergent_nodes')).toEqual([]);
  });

  it('how long the last decision held the event loop, and how many outlasted the probe timeout', async () => {
    const timing = new DecisionTiming(100);
    timing.record(40, 40, 10);
    timing.record(950, 1_950, 10_000);
    const source = new FakeSource();
    source.counters = { decisions: timing.view() };
    const expo = await scrape(registryOf(source));
    expect(expo.type.get('mlb_decision_duration_seconds')).toBe('gauge');
    expect(valueOf(expo, 'mlb_decision_duration_seconds')).toBe(0.95);
    expect(valueOf(expo, 'mlb_decisions_slow_total')).toBe(1);
  });

  it("the ARP answer thread's times: a histogram per stage, buckets cumulative up to +Inf, with _sum and _count", async () => {
    const source = new FakeSource();
    const stage = (counts: number[], sumSeconds: number) => ({ counts, sumSeconds });
    source.counters = {
      arpAnswerTimes: { boundsSeconds: [0.00001, 0.001], queued: stage([5, 3, 2], 0.5), answering: stage([10, 0, 0], 0.00004) },
    };
    const expo = await scrape(registryOf(source));
    const name = 'mlb_arp_fast_path_answer_seconds';
    expect(expo.type.get(name)).toBe('histogram');
    const bucket = (stage: string, le: string) => valueOf(expo, `${name}_bucket`, { stage, le });
    expect([bucket('queued', '0.00001'), bucket('queued', '0.001'), bucket('queued', '+Inf')]).toEqual([5, 8, 10]);
    expect(valueOf(expo, `${name}_count`, { stage: 'queued' })).toBe(10);
    expect(valueOf(expo, `${name}_sum`, { stage: 'queued' })).toBe(0.5);
    expect([bucket('answering', '0.00001'), bucket('answering', '+Inf')]).toEqual([10, 10]);
    expect(samplesOf(await scrape(registryOf(new FakeSource())), `${name}_count`)).toEqual([]);
  });

  it('parts that do not run have no series (not a made-up 0)', async () => {
    const source = new FakeSource();
    const expo = await scrape(registryOf(source));
    for (const name of [
      'metallb_layer2_requests_received',
      'metallb_allocator_addresses_total',
      'mlb_layer2_send_failures_total',
      'mlb_conflicts_detected_total',
      'mlb_gossip_drops_total',
      'mlb_gossip_packets_total',
      'mlb_self_check_probes_total',
      'mlb_decision_duration_seconds',
    ]) {
      expect(samplesOf(expo, name), name).toEqual([]);
      expect(expo.type.has(name), `${name} is still declared`).toBe(true);
    }
    expect(valueOf(expo, 'mlb_conflicts_active')).toBe(0);
    expect(valueOf(expo, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(valueOf(expo, 'process_start_time_seconds')).toBeLessThanOrEqual(Date.now() / 1000);
  });

  it('reads the daemon once per scrape, and every family has its HELP and TYPE', async () => {
    const source = new FakeSource();
    const r = registryOf(source);
    await scrape(r);
    const before = source.snapshotCalls;
    const expo = await scrape(r);
    expect(source.snapshotCalls - before).toBe(1);
    for (const name of expo.type.keys()) expect(expo.help.get(name), name).toBeTruthy();
    // MetalLB's names, as its dashboards and alerts spell them.
    for (const name of [
      'metallb_speaker_announced',
      'metallb_layer2_requests_received',
      'metallb_layer2_responses_sent',
      'metallb_layer2_gratuitous_sent',
      'metallb_allocator_addresses_total',
      'metallb_allocator_addresses_in_use_total',
      'metallb_k8s_client_config_loaded_bool',
      'metallb_k8s_client_config_stale_bool',
    ])
      expect(expo.type.has(name), name).toBe(true);
  });

  it('a failing daemon read fails the scrape instead of showing stale values', async () => {
    const source = new FakeSource();
    const r = registryOf(source);
    source.fail = new Error('not started');
    await expect(r.render()).rejects.toThrow('not started');
  });
});

describe("owner changes, from the daemon's events", () => {
  const change = (from: string[], to: string[], unheldMs: number | null) =>
    ({ type: 'ownerChanged', service: 'demo/web', protocol: 'layer2', ips: ['192.168.1.240'], from, to, unheldMs }) as const;

  it('counts moves and how long each IP went unheld; the first holder after start is no move', async () => {
    const source = new FakeSource();
    const r = registryOf(source);
    // The first holder, after the health check's first probe passed 31 ms into the daemon's life.
    source.events.record(change([], ['node-a'], 31));
    let expo = await scrape(r);
    expect(samplesOf(expo, 'mlb_owner_changes_total')).toEqual([]);
    expect(valueOf(expo, 'mlb_owner_change_unheld_seconds_count', { protocol: 'layer2' })).toBeUndefined();

    source.events.record(change(['node-a'], ['node-b'], 0));
    source.events.record(change(['node-b'], [], null));
    source.events.record(change([], ['node-c'], 1_500));
    expo = await scrape(r);
    expect(expo.type.get('mlb_owner_change_unheld_seconds')).toBe('histogram');
    expect(valueOf(expo, 'mlb_owner_changes_total', { service: 'demo/web', protocol: 'layer2' })).toBe(3);
    const bucket = (le: string) => valueOf(expo, 'mlb_owner_change_unheld_seconds_bucket', { protocol: 'layer2', le });
    expect(bucket('0')).toBe(1);
    expect(bucket('1')).toBe(1);
    expect(bucket('2')).toBe(2);
    expect(bucket('+Inf')).toBe(2);
    expect(valueOf(expo, 'mlb_owner_change_unheld_seconds_sum', { protocol: 'layer2' })).toBe(1.5);
  });

  it('counts configuration reloads by result, both present from the start', async () => {
    const source = new FakeSource();
    const r = registryOf(source);
    let expo = await scrape(r);
    expect(valueOf(expo, 'mlb_config_reloads_total', { result: 'failure' })).toBe(0);
    source.events.record({ type: 'configStale', file: 'mlb.yaml', errors: ['bad'] });
    source.events.record({ type: 'configReloaded', file: 'mlb.yaml' });
    source.events.record({ type: 'configReloaded', file: 'mlb.yaml' });
    expo = await scrape(r);
    expect(valueOf(expo, 'mlb_config_reloads_total', { result: 'failure' })).toBe(1);
    expect(valueOf(expo, 'mlb_config_reloads_total', { result: 'success' })).toBe(2);
  });

  it('stops following the events once closed', () => {
    const source = new FakeSource();
    const r = createMetricsRegistry(source);
    expect(source.subscribers).toBe(1);
    r.close();
    expect(source.subscribers).toBe(0);
  });
});
