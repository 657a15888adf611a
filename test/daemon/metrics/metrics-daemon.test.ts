/**
 * `mlb daemon --metrics-bind` as a user runs it, on loopback with announcing off: the page carries
 * metallb_speaker_announced for what the node holds, follows a health check failing and recovering, a second
 * node taking IPs (owner changes), and a stale configuration; a taken port or a bad address stops the start.
 */
import { freeLoopbackPort } from '../../support/free-port';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runMlb } from '../../cli/run-cli';
import { startDaemon, type RunningDaemon } from '../run-daemon';
import { parseExposition, samplesOf, valueOf, type Exposition } from './exposition';

const WAIT_MS = 15_000;
const POLL_MS = 100;

const dir = mkdtempSync(join(tmpdir(), 'mlb-metrics-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The web service's health check answers 200 while `healthy`, else 503. */
let healthy = true;
let healthServer: HttpServer;
let config: string;
beforeAll(async () => {
  healthServer = createHttpServer((_req, res) => {
    res.writeHead(healthy ? 200 : 503);
    res.end();
  });
  await new Promise<void>((resolve) => healthServer.listen(0, '127.0.0.1', resolve));
  const port = (healthServer.address() as AddressInfo).port;
  config = join(dir, 'mlb.yaml');
  writeFileSync(
    config,
    readFileSync('examples/plain-host.yaml', 'utf8').replace('http://127.0.0.1:8080/healthz', `http://127.0.0.1:${port}/healthz`),
  );
});
afterAll(() => new Promise<void>((resolve) => healthServer.close(() => resolve())));

interface MetricsDaemon {
  readonly daemon: RunningDaemon;
  readonly url: string;
  readonly gossipPort: number;
}

let runs = 0;
async function daemonWithMetrics(name: string, extra: string[] = [], configFile = config): Promise<MetricsDaemon> {
  const gossipPort = await freeLoopbackPort();
  const metricsPort = await freeLoopbackPort();
  // A fresh state directory each time: a node restarting on its old one would warm up and hold nothing.
  const run = `${name}-${++runs}`;
  const daemon = startDaemon([
    '--config',
    configFile,
    '--node-name',
    name,
    '--gossip-bind',
    `127.0.0.1:${gossipPort}`,
    '--state-dir',
    join(dir, run),
    '--control-socket',
    join(dir, `${run}.sock`),
    '--no-announce',
    '--metrics-bind',
    `127.0.0.1:${metricsPort}`,
    ...extra,
  ]);
  running.push(daemon);
  await daemon.waitFor((l) => l.event === 'metricsListening');
  return { daemon, url: `http://127.0.0.1:${metricsPort}/metrics`, gossipPort };
}

/** Scrapes until `ok` holds for the page, and returns that page. */
async function scrapeUntil(target: MetricsDaemon, ok: (expo: Exposition) => boolean, what: string): Promise<Exposition> {
  const deadline = Date.now() + WAIT_MS;
  let last = '';
  for (;;) {
    // A daemon that ended cannot show anything: say why, in its own words, rather than wait out the deadline.
    const { exitCode, signalCode } = target.daemon.child;
    if (exitCode !== null || signalCode !== null) {
      const log = target.daemon.lines.map((l) => JSON.stringify(l)).join('\n');
      throw new Error(
        `the daemon exited (${exitCode ?? signalCode}) before metrics showed ${what}:\n${log}\n${target.daemon.stderr.join('')}`,
      );
    }
    const res = await fetch(target.url).catch(() => undefined);
    if (res?.status === 200) {
      last = await res.text();
      const expo = parseExposition(last);
      if (ok(expo)) return expo;
    }
    if (Date.now() > deadline) throw new Error(`metrics never showed ${what}; last page:\n${last}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const announcedServices = (expo: Exposition) =>
  samplesOf(expo, 'metallb_speaker_announced')
    .map((s) => s.labels.service)
    .sort();

describe('mlb daemon --metrics-bind', () => {
  it('shows what a lone node announces, and its health check failing and coming back', async () => {
    const a = await daemonWithMetrics('node-a');
    const expo = await scrapeUntil(a, (e) => announcedServices(e).length === 4, 'every service announced by node-a');
    expect(
      samplesOf(expo, 'metallb_speaker_announced')
        .map((s) => s.labels)
        .sort((x, y) => x.service!.localeCompare(y.service!)),
    ).toEqual([
      { service: 'demo/api-v6', protocol: 'layer2', node: 'node-a', ip: 'fd00:10::200' },
      { service: 'demo/dns-tcp', protocol: 'layer2', node: 'node-a', ip: '192.168.10.210' },
      { service: 'demo/dns-udp', protocol: 'layer2', node: 'node-a', ip: '192.168.10.210' },
      { service: 'demo/web', protocol: 'layer2', node: 'node-a', ip: '192.168.10.200' },
    ]);
    expect(valueOf(expo, 'mlb_gossip_members', { state: 'alive' })).toBe(1);
    expect(valueOf(expo, 'metallb_k8s_client_config_loaded_bool')).toBe(1);
    expect(valueOf(expo, 'metallb_k8s_client_config_stale_bool')).toBe(0);
    expect(valueOf(expo, 'mlb_health_check_passing', { service: 'demo/web' })).toBe(1);

    healthy = false;
    try {
      const failing = await scrapeUntil(
        a,
        (e) => valueOf(e, 'mlb_service_announcing_nodes', { service: 'demo/web', protocol: 'layer2' }) === 0,
        'demo/web without a holder',
      );
      expect(valueOf(failing, 'mlb_health_check_passing', { service: 'demo/web' })).toBe(0);
      expect(announcedServices(failing)).not.toContain('demo/web');
      expect(valueOf(failing, 'mlb_owner_changes_total', { service: 'demo/web', protocol: 'layer2' })).toBe(1);
    } finally {
      healthy = true;
    }
    const back = await scrapeUntil(a, (e) => announcedServices(e).includes('demo/web'), 'demo/web announced again');
    expect(valueOf(back, 'mlb_owner_changes_total', { service: 'demo/web', protocol: 'layer2' })).toBe(2);
    // The IP went unheld for at least the rise of two one-second probes.
    expect(valueOf(back, 'mlb_owner_change_unheld_seconds_count', { protocol: 'layer2' })).toBe(1);
    expect(valueOf(back, 'mlb_owner_change_unheld_seconds_sum', { protocol: 'layer2' })).toBeGreaterThan(1);
  });

  it('counts the IPs a joining node takes as direct moves', async () => {
    const a = await daemonWithMetrics('node-a');
    await scrapeUntil(a, (e) => announcedServices(e).length === 4, 'every service announced by node-a');
    await daemonWithMetrics('node-b', ['--join', `127.0.0.1:${a.gossipPort}`]);
    // `mlb explain --config examples/plain-host.yaml --nodes node-a,node-b`: node-b wins dns-tcp, dns-udp and web.
    const expo = await scrapeUntil(a, (e) => announcedServices(e).join() === 'demo/api-v6', 'node-b holding its share');
    expect(valueOf(expo, 'mlb_gossip_members', { state: 'alive' })).toBe(2);
    for (const service of ['demo/dns-tcp', 'demo/dns-udp', 'demo/web']) {
      expect(valueOf(expo, 'mlb_owner_changes_total', { service, protocol: 'layer2' }), service).toBe(1);
    }
    expect(valueOf(expo, 'mlb_owner_change_unheld_seconds_bucket', { protocol: 'layer2', le: '0' })).toBe(3);
  });

  it('measures the IPs of a killed holder as unheld from its last packet, in the log and the histogram alike', async () => {
    const a = await daemonWithMetrics('node-a');
    await scrapeUntil(a, (e) => announcedServices(e).length === 4, 'every service announced by node-a');
    const b = await daemonWithMetrics('node-b', ['--join', `127.0.0.1:${a.gossipPort}`]);
    // node-b wins dns-tcp, dns-udp and web (see above): three moves with no gap, node-a handing over.
    await scrapeUntil(a, (e) => announcedServices(e).join() === 'demo/api-v6', 'node-b holding its share');
    b.daemon.child.kill('SIGKILL');
    const back = await scrapeUntil(a, (e) => announcedServices(e).length === 4, 'node-a holding everything again');
    const taken = a.daemon.lines.filter((l) => l.event === 'ownerChanged' && (l.from as string[]).join() === 'node-b');
    expect(taken.map((l) => l.service).sort()).toEqual(['demo/dns-tcp', 'demo/dns-udp', 'demo/web']);
    for (const change of taken) {
      // Detection (probe, suspicion) took time during which nobody answered: counted, and named beside it.
      expect(change).toMatchObject({ to: ['node-a'], reason: 'holderGone' });
      expect(change.detectionMs as number).toBeGreaterThan(0);
      expect(change.unheldMs as number).toBeGreaterThanOrEqual(change.detectionMs as number);
    }
    // The histogram holds exactly what the events said: the three handovers at 0, the three crash gaps above it.
    expect(valueOf(back, 'mlb_owner_change_unheld_seconds_count', { protocol: 'layer2' })).toBe(6);
    expect(valueOf(back, 'mlb_owner_change_unheld_seconds_bucket', { protocol: 'layer2', le: '0' })).toBe(3);
    const eventSeconds = taken.reduce((sum, l) => sum + (l.unheldMs as number) / 1000, 0);
    expect(valueOf(back, 'mlb_owner_change_unheld_seconds_sum', { protocol: 'layer2' })).toBeCloseTo(eventSeconds, 6);
  });

  it("counts pool use, gossip traffic and drops from the speaker's counters", async () => {
    const a = await daemonWithMetrics('node-a');
    const expo = await scrapeUntil(a, (e) => announcedServices(e).length === 4, 'every service announced by node-a');
    // examples/plain-host.yaml: lan is 192.168.10.200-220 (web took .200, dns-tcp and dns-udp share .210), lan-v6 a /124.
    expect(valueOf(expo, 'metallb_allocator_addresses_total', { pool: 'lan' })).toBe(21);
    expect(valueOf(expo, 'metallb_allocator_addresses_in_use_total', { pool: 'lan' })).toBe(2);
    expect(valueOf(expo, 'metallb_allocator_services_allocated_total', { pool: 'lan' })).toBe(3);
    expect(valueOf(expo, 'metallb_allocator_ipv6_addresses_total', { pool: 'lan-v6' })).toBe(16);
    expect(valueOf(expo, 'metallb_allocator_ipv6_addresses_in_use_total', { pool: 'lan-v6' })).toBe(1);
    // A peer encrypting with a key this node does not use: its packets are dropped, with the reason.
    writeFileSync(join(dir, 'key'), 'c2VjcmV0c2VjcmV0c2VjcmV0');
    await daemonWithMetrics('node-x', ['--gossip-key-file', join(dir, 'key'), '--join', `127.0.0.1:${a.gossipPort}`]);
    const after = await scrapeUntil(a, (e) => samplesOf(e, 'mlb_gossip_drops_total').length > 0, 'a gossip drop');
    expect(samplesOf(after, 'mlb_gossip_drops_total').map((s) => s.labels.reason)).toContain('unexpectedEncryption');
    // Its join came as a TCP push/pull stream, accepted then refused.
    expect(valueOf(after, 'mlb_gossip_streams_total', { direction: 'accepted' })).toBeGreaterThan(0);
    expect(valueOf(after, 'mlb_gossip_record_drops_total', { reason: 'badTable' })).toBe(0);
    // --no-announce: no L2 announcer, so no layer2 counters at all rather than zeros.
    expect(samplesOf(after, 'mlb_layer2_send_failures_total')).toEqual([]);
  });

  it('shows a stale configuration until it is fixed', async () => {
    const live = join(dir, 'live.yaml');
    writeFileSync(live, readFileSync(config, 'utf8'));
    const a = await daemonWithMetrics('node-a', [], live);
    await scrapeUntil(a, (e) => valueOf(e, 'metallb_k8s_client_config_stale_bool') === 0, 'a good configuration');
    writeFileSync(live, readFileSync(config, 'utf8').replace('192.168.10.200-192.168.10.220', '192.168.10.220-192.168.10.200'));
    const stale = await scrapeUntil(a, (e) => valueOf(e, 'metallb_k8s_client_config_stale_bool') === 1, 'the stale configuration');
    expect(valueOf(stale, 'mlb_config_reloads_total', { result: 'failure' })).toBe(1);
    writeFileSync(live, readFileSync(config, 'utf8'));
    const fixed = await scrapeUntil(a, (e) => valueOf(e, 'metallb_k8s_client_config_stale_bool') === 0, 'the fixed configuration');
    expect(valueOf(fixed, 'mlb_config_reloads_total', { result: 'success' })).toBe(1);
  });

  it('refuses a taken port before joining anyone (exit 1), and an address that is not HOST:PORT (exit 2)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const run = runMlb([
        'daemon',
        '--config',
        config,
        '--gossip-bind',
        `127.0.0.1:${await freeLoopbackPort()}`,
        '--state-dir',
        join(dir, 'taken'),
        '--control-socket',
        join(dir, 'taken.sock'),
        '--no-announce',
        '--metrics-bind',
        `127.0.0.1:${port}`,
      ]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`cannot serve metrics on 127.0.0.1:${port}`);
      expect(run.stdout).not.toContain('gossipStarted');
    } finally {
      taken.close();
    }
    const bad = runMlb(['daemon', '--config', config, '--gossip-bind', '127.0.0.1:7946', '--metrics-bind', 'localhost:7472']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--metrics-bind');
  });
});
