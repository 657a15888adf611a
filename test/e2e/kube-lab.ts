/**
 * A Kubernetes cluster in network namespaces, as far as MetalLB sees one: the fake API server (in this process),
 * `mlb controller` and one `mlb daemon --kubernetes` per node (the built bundle, in the namespaces), each under its
 * own service account with deploy/'s RBAC, and DaemonLab's nodes, HTTP servers and client.
 *
 * The fake listens on this process's loopback, which the namespaces cannot reach. A relay inside an "api" host on
 * the lab segment accepts the cluster's connections at API_PORT and hands each to a Unix socket (the file system is
 * shared with the namespaces; the network is not), where this process connects it to the fake. Killing the relay is
 * an API server that stops: connections drop and new ones are refused, and the fake's state survives for the restart.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from '../daemon/run-daemon';
import { INSTALL_NAMESPACE, kubectl } from '../support/deploy-manifests';
import {
  kubectlFor,
  rbacFromManifestText,
  startFakeApiServer,
  type FakeApiServer,
  type KubeObject,
  type Kubectl,
} from '../support/fake-apiserver';
import { writeKubeconfig } from '../support/fake-apiserver/credentials';
import type { LabHost } from '../support/netns-lab';
import { DaemonLab, HTTP_PORT, METRICS_PORT, eventually, type StatusService } from './daemon-lab';

const run = promisify(execFile);

/** The API server's port on the lab segment (kubeadm's). */
export const API_PORT = 6443;
/** MetalLB's service accounts (deploy/rbac), whose Roles the fake enforces. */
export const CONTROLLER_SUBJECT = `system:serviceaccount:${INSTALL_NAMESPACE}:controller`;
export const SPEAKER_SUBJECT = `system:serviceaccount:${INSTALL_NAMESPACE}:speaker`;
/** The namespace the test's Service lives in. */
export const APP_NAMESPACE = 'demo';
/** controller-runtime's health port in MetalLB, which `mlb controller` keeps. */
const CONTROLLER_HEALTH_PORT = 17472;

/** Inside the api host: accept on HOST:PORT, pipe each connection to the Unix socket PATH, print "listening". */
const RELAY = `
const net = require('node:net'); const [host, port, path] = process.argv.slice(1);
net.createServer((c) => { const u = net.connect(path);
  const end = () => { c.destroy(); u.destroy(); };
  c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end); c.pipe(u); u.pipe(c);
}).listen(Number(port), host, () => console.log('listening'));`;

/** Pipes two sockets together and tears both down when either ends or fails. */
function splice(a: Socket, b: Socket): void {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  for (const s of [a, b]) {
    s.on('error', end);
    s.on('close', end);
  }
  a.pipe(b);
  b.pipe(a);
}

function objectMeta(name: string, namespace?: string, labels?: Record<string, string>): KubeObject['metadata'] {
  return { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) };
}

/** A Ready Node whose InternalIP is the lab host's address. */
function nodeObject(host: LabHost): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: objectMeta(host.name, undefined, { 'kubernetes.io/hostname': host.name, 'kubernetes.io/os': 'linux' }),
    spec: {},
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
      addresses: [
        { type: 'InternalIP', address: host.ipv4 },
        { type: 'Hostname', address: host.name },
      ],
    },
  };
}

/** The speaker DaemonSet's pod on a node: hostNetwork, so its pod IP is the node's; labels as deploy/ gives them. */
function speakerPod(host: LabHost): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: objectMeta(`speaker-${host.name}`, INSTALL_NAMESPACE, { app: 'metallb', component: 'speaker' }),
    spec: { nodeName: host.name, hostNetwork: true, serviceAccountName: 'speaker', containers: [{ name: 'speaker', image: 'mlb:0.1.0' }] },
    status: {
      phase: 'Running',
      podIP: host.ipv4,
      podIPs: [{ ip: host.ipv4 }],
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** The EndpointSlice of a Service backed by one ready endpoint per node (the nodes' HTTP servers). */
export function endpointSlice(service: string, port: number, nodes: readonly LabHost[]): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: objectMeta(`${service}-x1`, APP_NAMESPACE, { 'kubernetes.io/service-name': service }),
    addressType: 'IPv4',
    ports: [{ name: '', protocol: 'TCP', port }],
    endpoints: nodes.map((n) => ({
      addresses: [n.ipv4],
      nodeName: n.name,
      conditions: { ready: true, serving: true, terminating: false },
    })),
  };
}

/** What exists before MetalLB is installed: namespaces, Nodes, the controller Deployment and the speaker Pods. */
function clusterObjects(nodes: readonly LabHost[], slices: readonly KubeObject[]): KubeObject[] {
  const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: objectMeta(name), spec: {} });
  return [
    namespace(INSTALL_NAMESPACE),
    namespace(APP_NAMESPACE),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: objectMeta('controller', INSTALL_NAMESPACE, { app: 'metallb', component: 'controller' }),
      spec: {
        selector: { matchLabels: { app: 'metallb', component: 'controller' } },
        template: { metadata: {}, spec: { containers: [] } },
      },
    },
    ...nodes.map(nodeObject),
    ...nodes.map(speakerPod),
    ...slices,
  ];
}

export interface Controller {
  readonly child: ChildProcess;
  readonly output: string[];
}

export class KubeLab {
  readonly hosts: DaemonLab;
  readonly apiHost: LabHost;
  private relay: ChildProcess | undefined;
  private bridge: Server | undefined;
  private readonly bridged = new Set<Socket>();
  api!: FakeApiServer;
  /** kubectl as the cluster admin (a user at a workstation), straight to the fake. */
  kubectl!: Kubectl;
  controller: Controller | undefined;

  private constructor(nodeCount: number) {
    this.hosts = new DaemonLab(nodeCount);
    this.apiHost = this.hosts.lab.addHost('api');
  }

  get dir(): string {
    return this.hosts.dir;
  }

  get apiUrl(): string {
    return `http://${this.apiHost.ipv4}:${API_PORT}`;
  }

  private get bridgePath(): string {
    return join(this.dir, 'api.sock');
  }

  /** The lab, the fake with deploy/'s RBAC and the seeded cluster, and the relay that exposes it to the namespaces. */
  static async start(slices: (nodes: readonly LabHost[]) => KubeObject[], nodeCount = 3): Promise<KubeLab> {
    const lab = new KubeLab(nodeCount);
    try {
      const { stdout } = await kubectl(['kustomize', join(REPO_ROOT, 'deploy')]);
      lab.api = await startFakeApiServer({
        rbac: rbacFromManifestText(stdout),
        objects: clusterObjects(lab.hosts.nodes, slices(lab.hosts.nodes)),
      });
      lab.kubectl = kubectlFor(lab.api.kubeconfigPath(lab.dir));
      const port = Number(new URL(lab.api.url).port);
      lab.bridge = createServer((socket) => {
        const upstream = connect(port, '127.0.0.1');
        lab.bridged.add(socket);
        socket.on('close', () => lab.bridged.delete(socket));
        splice(socket, upstream);
      });
      await new Promise<void>((resolve, reject) => lab.bridge!.once('error', reject).listen(lab.bridgePath, resolve));
      await lab.startApi();
      return lab;
    } catch (error) {
      await lab.destroy();
      throw error;
    }
  }

  /** Starts the relay: the API server is reachable on the segment again. */
  async startApi(): Promise<void> {
    const relay = this.hosts.lab.spawnIn(this.apiHost, process.execPath, [
      '-e',
      RELAY,
      this.apiHost.ipv4,
      String(API_PORT),
      this.bridgePath,
    ]);
    this.relay = relay;
    await new Promise<void>((resolve, reject) => {
      relay.stdout!.once('data', () => resolve());
      relay.once('exit', (code) => reject(new Error(`API relay exited ${code}`)));
    });
  }

  /** Stops the API server as the cluster sees it: every connection drops, new ones are refused. */
  async stopApi(): Promise<void> {
    const relay = this.relay;
    if (!relay || relay.exitCode !== null) return;
    const exited = new Promise((resolve) => relay.once('exit', resolve));
    relay.kill('SIGKILL');
    await exited;
    for (const socket of this.bridged) socket.destroy();
  }

  /** A kubeconfig reaching the API server from the namespaces, as a service account. */
  kubeconfig(subject: string): string {
    return writeKubeconfig(this.dir, this.apiUrl, subject);
  }

  /** `mlb controller` in the api host, as the controller service account. */
  startController(): Controller {
    const child = this.hosts.lab.spawnIn(
      this.apiHost,
      process.execPath,
      [
        MLB_BUNDLE,
        'controller',
        '--kubeconfig',
        this.kubeconfig(CONTROLLER_SUBJECT),
        '--namespace',
        INSTALL_NAMESPACE,
        '--metrics-bind',
        `${this.apiHost.ipv4}:${METRICS_PORT}`,
        '--health-bind',
        `${this.apiHost.ipv4}:${CONTROLLER_HEALTH_PORT}`,
      ],
      { cwd: REPO_ROOT },
    );
    const output: string[] = [];
    child.stdout!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    this.controller = { child, output };
    return this.controller;
  }

  /** The memberlist secret the controller creates, written where the speaker DaemonSet mounts it (a directory). */
  async memberlistKeyDir(): Promise<string> {
    const secrets = this.api.resourceType('', 'secrets');
    const secret = await eventually(() => this.api.store.get(secrets, INSTALL_NAMESPACE, 'memberlist'), 15_000, 100);
    const dir = join(this.dir, 'ml_secret_key');
    mkdirSync(dir, { recursive: true });
    const data = secret['data'] as { secretkey: string };
    // Secret data is base64 in the API; the mounted file holds the decoded value.
    writeFileSync(join(dir, 'secretkey'), Buffer.from(data.secretkey, 'base64'), { mode: 0o600 });
    return dir;
  }

  /**
   * `mlb daemon --kubernetes` on a node as deploy/'s DaemonSet runs it, as the speaker service account: node name,
   * pod name, gossip address and key directory from MetalLB's environment, and no --join (it joins the speaker
   * Pods at their pod IPs). The paths a pod gets from its own filesystem (state, control socket) are per node here.
   */
  startSpeaker(name: string, keyDir: string): RunningDaemon {
    const host = this.hosts.host(name);
    const env = {
      METALLB_NODE_NAME: name,
      METALLB_POD_NAME: `speaker-${name}`,
      METALLB_HOST: host.ipv4,
      METALLB_ML_BIND_ADDR: host.ipv4,
      METALLB_ML_BIND_PORT: '7946',
      METALLB_ML_LABELS: 'app=metallb,component=speaker',
      METALLB_ML_SECRET_KEY_PATH: keyDir,
    };
    const daemon = startDaemon(
      [
        '--kubernetes',
        `--metrics-bind=${host.ipv4}`,
        '--kubeconfig',
        this.kubeconfig(SPEAKER_SUBJECT),
        '--state-dir',
        join(this.dir, name),
        '--control-socket',
        this.hosts.socket(name),
      ],
      host.netns,
      ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)],
    );
    this.hosts.daemons.set(name, daemon);
    return daemon;
  }

  /*
   * The lab's views, asynchronous: the fake API server and its relay live on this process's event loop, and a
   * synchronous child (DaemonLab's spawnSync) would freeze them for as long as it runs, which the speakers see as
   * a slow or silent API server.
   */

  /** `mlb status --json` of a node, through its control socket. */
  async status(
    name: string,
  ): Promise<{ services: StatusService[]; members: { name: string; state: string }[]; config: { state: string } }> {
    const { stdout } = await run(process.execPath, [MLB_BUNDLE, 'status', '--json', '--socket', this.hosts.socket(name)], {
      cwd: REPO_ROOT,
    });
    return JSON.parse(stdout);
  }

  async ownerOf(name: string, service: string): Promise<string | null> {
    return (await this.status(name)).services.find((s) => s.service === service && s.protocol === 'layer2')?.owner ?? null;
  }

  /** The owner every running speaker agrees on, once each sees the others alive; undefined until then. */
  async agreedOwner(service: string, nodes: readonly string[]): Promise<string | undefined> {
    const views = await Promise.all(nodes.map((n) => this.status(n)));
    if (!views.every((v) => v.members.filter((m) => m.state === 'alive').length === nodes.length)) return undefined;
    const owners = new Set(views.map((v) => v.services.find((s) => s.service === service && s.protocol === 'layer2')?.owner ?? ''));
    const [owner] = [...owners];
    return owners.size === 1 && owner ? owner : undefined;
  }

  /** The MACs answering ARP for `ip` from the client (iputils arping, `count` probes). */
  async arpingMacs(ip: string, count = 2): Promise<string[]> {
    const args = ['netns', 'exec', this.hosts.client.netns, 'arping', '-c', String(count), '-w', String(count + 1), '-I', 'eth0', ip];
    const { stdout } = await run('ip', args).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return [...new Set([...stdout.matchAll(/reply from \S+ \[([0-9a-f:]+)\]/gi)].map((m) => (m[1] as string).toLowerCase()))];
  }

  /** The node whose HTTP server answered on ip from the client, or undefined. */
  async curl(ip: string): Promise<string | undefined> {
    const args = ['netns', 'exec', this.hosts.client.netns, 'curl', '-s', '--max-time', '1', `http://${ip}:${HTTP_PORT}/`];
    return run('ip', args).then(
      ({ stdout }) => stdout,
      () => undefined,
    );
  }

  /** Every speaker's log lines and the controller's output, for a failed run. */
  logs(): string {
    const speakers = [...this.hosts.daemons].flatMap(([name, d]) => d.lines.map((l) => `${name} ${l['ts']} ${l['event']} ${l['msg']}`));
    return [...speakers, ...(this.controller?.output ?? [])].join('\n');
  }

  async destroy(): Promise<void> {
    if (this.controller?.child.exitCode === null) this.controller.child.kill('SIGKILL');
    this.relay?.kill('SIGKILL');
    for (const socket of this.bridged) socket.destroy();
    await new Promise<void>((resolve) => (this.bridge ? this.bridge.close(() => resolve()) : resolve()));
    this.kubectl?.cleanup();
    await this.api?.close();
    this.hosts.destroy();
  }
}
