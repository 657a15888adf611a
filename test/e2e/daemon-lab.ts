/**
 * Plain hosts in network namespaces, as an operator runs them: N nodes and a client on one segment, `mlb daemon`
 * in each node with the same YAML file, an HTTP server per node behind a health check, and the client looking
 * at the VIPs with iputils arping, curl and its kernel neighbour table.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from '../daemon/run-daemon';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';
import { NetnsLab, type LabHost } from '../support/netns-lab';

export const HTTP_PORT = 8080;
/** MetalLB's speaker metrics port. */
export const METRICS_PORT = 7472;
export const WEB_SERVICE = 'demo/web';
export const API_SERVICE = 'demo/api';
export const API_IP = '10.213.0.210';

/** The pool on the lab segment and one L2Advertisement for it. */
export const LAB_POOL_YAML = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: lab, namespace: metallb-system }
spec:
  addresses: [10.213.0.200-10.213.0.220]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: lab, namespace: metallb-system }
`;

/** demo/api, pinned to API_IP: the service whose owner the failover tests and the bench watch. */
export const API_SERVICE_YAML = `apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: demo
  annotations:
    metallb.io/loadBalancerIPs: ${API_IP}
spec:
  type: LoadBalancer
  ports: [{ port: ${HTTP_PORT}, protocol: TCP }]
`;

/** The lab's configuration: the pool, a health-checked service without an IP, and the pinned demo/api. */
export function labConfig(extraServices = ''): string {
  return `${LAB_POOL_YAML}---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: demo
  annotations:
    mlb.io/health-check: http://127.0.0.1:${HTTP_PORT}/healthz
    mlb.io/health-check-interval: 200ms
    mlb.io/health-check-rise: "2"
    mlb.io/health-check-fall: "2"
spec:
  type: LoadBalancer
  ports: [{ port: ${HTTP_PORT}, protocol: TCP }]
---
${API_SERVICE_YAML}${extraServices}`;
}

/** A tiny HTTP server: "/" answers the node's name, "/healthz" 200 unless the node's unhealthy file exists. */
const SERVER = `
const http = require('node:http'); const fs = require('node:fs');
const [name, flag, port] = process.argv.slice(1);
http.createServer((req, res) => {
  if (req.url === '/healthz') { res.statusCode = fs.existsSync(flag) ? 503 : 200; return res.end(); }
  res.end(name);
}).listen(Number(port), '0.0.0.0');`;

/**
 * The client's view over time: GET / on ip:8080, one at a time, 20 ms apart, one JSON line per answer. The
 * timeout is just under TCP's initial SYN retransmission (1 s): a SYN lost in a gap (sent to a host that no
 * longer holds the VIP) always fails its request, while a request slowed by a busy machine (the whole suite runs
 * beside it) is not mistaken for one. With 300 ms, a loaded run failed on scheduling delay alone.
 */
const CLIENT_TIMEOUT_MS = 900;
const CLIENT_LOOP = `
const http = require('node:http'); const [ip, port] = process.argv.slice(1);
const once = () => { const t = Date.now(); const req = http.get({ host: ip, port: Number(port), path: '/', timeout: ${CLIENT_TIMEOUT_MS}, agent: false }, (res) => {
  let body = ''; res.on('data', (c) => body += c); res.on('end', () => { console.log(JSON.stringify({ t, node: body })); setTimeout(once, 20); }); });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', (e) => { console.log(JSON.stringify({ t, node: null, error: e.message })); setTimeout(once, 20); }); };
once();`;

export interface ClientSample {
  readonly t: number;
  readonly node: string | null;
  readonly error?: string;
}

export interface StatusService {
  service: string;
  ips: string[];
  protocol: string;
  owner: string | null;
  candidates: { node: string; rank: number | null; eligible: boolean; reason: string }[];
}

export class DaemonLab {
  readonly lab = new NetnsLab();
  readonly dir = mkdtempSync(join(tmpdir(), 'mlb-e2e-'));
  readonly nodes: LabHost[];
  readonly client: LabHost;
  readonly configFile = join(this.dir, 'mlb.yaml');
  readonly daemons = new Map<string, RunningDaemon>();
  /** Every daemon started, restarts included, in order: a failing test writes their logs (writeLogs). */
  readonly started: { readonly name: string; readonly daemon: RunningDaemon }[] = [];
  /** Nodes that read a file of their own instead of the shared one (ownConfig). */
  private readonly ownConfigs = new Map<string, string>();

  constructor(
    nodeCount: number,
    readonly extraArgs: string[] = [],
  ) {
    this.nodes = Array.from({ length: nodeCount }, (_, i) => this.lab.addHost(`node-${i + 1}`));
    this.client = this.lab.addHost('client');
    writeFileSync(this.configFile, labConfig());
    for (const node of this.nodes) {
      this.lab.spawnIn(node, process.execPath, ['-e', SERVER, node.name, this.unhealthyFile(node.name), String(HTTP_PORT)], {
        stdio: 'ignore',
      });
    }
  }

  host(name: string): LabHost {
    const host = this.lab.hosts.find((h) => h.name === name);
    if (!host) throw new Error(`no lab host ${name}`);
    return host;
  }

  socket(name: string): string {
    return join(this.dir, `${name}.sock`);
  }

  unhealthyFile(name: string): string {
    return join(this.dir, `${name}.unhealthy`);
  }

  setHealthy(name: string, healthy: boolean): void {
    if (healthy) {
      if (existsSync(this.unhealthyFile(name))) unlinkSync(this.unhealthyFile(name));
    } else writeFileSync(this.unhealthyFile(name), '');
  }

  /**
   * Gives a node a configuration file of its own, a copy of the shared one, so a test can damage one node's file
   * while the others keep theirs (as on plain hosts, where every host has its own /etc/mlb/mlb.yaml).
   */
  ownConfig(name: string): string {
    const file = join(this.dir, `${name}.yaml`);
    copyFileSync(this.configFile, file);
    this.ownConfigs.set(name, file);
    return file;
  }

  configOf(name: string): string {
    return this.ownConfigs.get(name) ?? this.configFile;
  }

  /**
   * `bundle`: another build of mlb to run there (a previous release, in the rolling-upgrade test); `wrap`: a
   * command that execs the rest (startDaemon's), e.g. setsid for a session of its own.
   */
  start(name: string, extra: string[] = [], bundle = MLB_BUNDLE, wrap: readonly string[] = []): RunningDaemon {
    const host = this.host(name);
    const others = this.nodes.filter((n) => n.name !== name).map((n) => `${n.ipv4}:7946`);
    const daemon = startDaemon(
      [
        '--config',
        this.configOf(name),
        '--node-name',
        name,
        '--gossip-bind',
        `${host.ipv4}:7946`,
        '--join',
        others.join(','),
        '--state-dir',
        join(this.dir, name),
        '--control-socket',
        this.socket(name),
        '--metrics-bind',
        `${host.ipv4}:${METRICS_PORT}`,
        ...this.extraArgs,
        ...extra,
      ],
      host.netns,
      wrap,
      bundle,
    );
    this.daemons.set(name, daemon);
    this.started.push({ name, daemon });
    return daemon;
  }

  startAll(): void {
    for (const node of this.nodes) this.start(node.name);
  }

  daemon(name: string): RunningDaemon {
    const d = this.daemons.get(name);
    if (!d) throw new Error(`${name} has no daemon`);
    return d;
  }

  /** `mlb status --json` of a node (the socket is a file: reachable from the test's namespace). */
  status(name: string): { services: StatusService[]; members: { name: string; state: string }[]; local: { bound: string[] } } {
    const run = spawnSync(process.execPath, [MLB_BUNDLE, 'status', '--json', '--socket', this.socket(name)], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`mlb status on ${name} failed: ${run.stderr}`);
    return JSON.parse(run.stdout);
  }

  /** The whole `mlb status --json` snapshot of a node, for fields the typed view above leaves out. */
  statusJSON(name: string): ControlSnapshot {
    return this.status(name) as unknown as ControlSnapshot;
  }

  /**
   * The nodes a node's status names as having a configuration other than what runs in the cluster: members whose
   * file differs or whose file on disk is refused, and the node itself when its own file is stale.
   */
  configDifferences(name: string): string[] {
    const s = this.statusJSON(name);
    const a = s.configAgreement;
    const named = [...(a?.divergent ?? []).map((d) => d.node), ...(a?.refused ?? []).map((r) => r.node)];
    if (s.config.state === 'stale') named.push(s.node.name);
    return [...new Set(named)].sort();
  }

  ownerOf(name: string, service: string): string | null {
    return this.status(name).services.find((s) => s.service === service && s.protocol === 'layer2')?.owner ?? null;
  }

  /**
   * Waits until every node sees every node alive and all agree on each service's owner: the cluster has settled
   * after a start, so what a test counts afterwards is its own doing, not the start-up's convergence.
   * Returns the agreed owner of each service.
   */
  async settled(services: readonly string[], timeoutMs = 30_000): Promise<Map<string, string>> {
    return eventually(
      () => {
        const views = this.nodes.map((n) => this.status(n.name));
        const allAlive = views.every((v) => v.members.filter((m) => m.state === 'alive').length === this.nodes.length);
        if (!allAlive) return undefined;
        const owners = new Map<string, string>();
        for (const service of services) {
          const seen = new Set(views.map((v) => v.services.find((s) => s.service === service && s.protocol === 'layer2')?.owner ?? ''));
          const [owner] = [...seen];
          if (seen.size !== 1 || !owner) return undefined;
          owners.set(service, owner);
        }
        return owners;
      },
      timeoutMs,
      200,
    );
  }

  ipOf(name: string, service: string): string | undefined {
    return this.status(name).services.find((s) => s.service === service)?.ips[0];
  }

  /** `mlb explain SERVICE --socket --json` of a node. */
  explain(name: string, service: string): { winner: string | null; candidates: StatusService['candidates'] }[] {
    const run = spawnSync(process.execPath, [MLB_BUNDLE, 'explain', service, '--json', '--socket', this.socket(name)], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    // Exit 1 with the explanation printed: nobody announces the service, which the caller may be waiting for.
    if (run.status !== 0 && !(run.status === 1 && run.stdout !== '')) throw new Error(`mlb explain on ${name} failed: ${run.stderr}`);
    return JSON.parse(run.stdout);
  }

  /** The MACs answering ARP for `ip` from the client (iputils arping, `count` probes). */
  arpingMacs(ip: string, count = 2): string[] {
    const run = spawnSync(
      'ip',
      ['netns', 'exec', this.client.netns, 'arping', '-c', String(count), '-w', String(count + 1), '-I', 'eth0', ip],
      { encoding: 'utf8' },
    );
    return [...new Set([...run.stdout.matchAll(/reply from \S+ \[([0-9a-f:]+)\]/gi)].map((m) => (m[1] as string).toLowerCase()))];
  }

  /** The node whose HTTP server answered on ip:8080 from the client, or undefined. */
  curl(ip: string): string | undefined {
    const run = spawnSync('ip', ['netns', 'exec', this.client.netns, 'curl', '-s', '--max-time', '1', `http://${ip}:${HTTP_PORT}/`], {
      encoding: 'utf8',
    });
    return run.status === 0 ? run.stdout : undefined;
  }

  /** A node's Prometheus exposition, scraped from the client as Prometheus would. */
  metrics(name: string): string {
    const run = spawnSync(
      'ip',
      ['netns', 'exec', this.client.netns, 'curl', '-s', '--max-time', '2', `http://${this.host(name).ipv4}:${METRICS_PORT}/metrics`],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`cannot scrape ${name}: curl exit ${run.status}`);
    return run.stdout;
  }

  /** The client's neighbour entry for ip: its MAC, or undefined. */
  clientNeighbour(ip: string): string | undefined {
    const out = execFileSync('ip', ['-n', this.client.netns, '-j', 'neigh', 'show', ip], { encoding: 'utf8' });
    const entries = JSON.parse(out || '[]') as { lladdr?: string }[];
    return entries[0]?.lladdr?.toLowerCase();
  }

  /** Starts the client's request loop against ip:8080; stop() ends it and returns every sample. */
  clientLoop(ip: string): { samples: ClientSample[]; stop(): ClientSample[]; drain(): Promise<ClientSample[]> } {
    const child = this.lab.spawnIn(this.client, process.execPath, ['-e', CLIENT_LOOP, ip, String(HTTP_PORT)]);
    const samples: ClientSample[] = [];
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line) samples.push(JSON.parse(line) as ClientSample);
    });
    return {
      samples,
      stop: () => {
        child.kill('SIGKILL');
        return samples;
      },
      // Also the lines still in the pipe: after a test held this thread (spawnSync loops), most are still there.
      drain: () =>
        new Promise<ClientSample[]>((resolve) => {
          child.stdout!.once('close', () => resolve(samples));
          child.kill('SIGKILL');
        }),
    };
  }

  macOf(name: string): string {
    return this.host(name).mac;
  }

  nameOfMac(mac: string): string | undefined {
    return this.lab.hosts.find((h) => h.mac === mac)?.name;
  }

  /**
   * Writes every daemon's log (restarts included, as NAME.N.log) to a directory that outlives destroy(), for a
   * failure message to name: the lab's own directory is removed with the lab.
   */
  writeLogs(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mlb-e2e-logs-'));
    this.started.forEach(({ name, daemon }, i) => {
      const text = daemon.lines.map((l) => JSON.stringify(l)).join('\n') + '\n' + daemon.stderr.join('');
      writeFileSync(join(dir, `${name}.${i}.log`), text);
    });
    return dir;
  }

  destroy(): void {
    for (const d of this.daemons.values()) if (d.child.exitCode === null) d.child.kill('SIGKILL');
    this.lab.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls until `check` returns a value that is not undefined (or throws after timeoutMs with the last error). */
export async function eventually<T>(check: () => T | undefined, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
