// A cluster halfway through a migration: two `mlb daemon --kubernetes` speakers (127.0.0.1, 127.0.0.2) and a real
// Go memberlist node standing in for a MetalLB speaker on a third node (127.0.0.3: Debian's hashicorp/memberlist,
// LAN defaults, MetalLB's secretkey, no node meta, as MetalLB's speakerlist runs it). The mlb speakers find it as they
// find each other, from the speaker pods' IPs. While it is a member, mlb must elect exactly as MetalLB does, so that
// every IP has one owner: its own inputs (health, drain, warm-up) are off and a drained mlb node keeps the IPs
// MetalLB's hash gives it. Once the MetalLB speaker has left, they are on again and the drain moves those IPs.
// The built bundle against the fake API server, under deploy/'s RBAC for the speaker account.
import { speakerPod, speakerStatus, spawnKubernetesSpeaker } from './spawn-kubernetes-speaker';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankNodes } from '../../../src/election';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { rbacFromManifestText, startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { kubectl, kubectlMissing } from '../../support/deploy-manifests';
import { freeLoopbackPort, freePortOnAll } from '../../support/free-port';
import { until } from '../../support/until';
import { MLB_BUNDLE, REPO_ROOT } from '../../cli/run-cli';
import { buildGoProgram, goMissingMessage, goPathWith, goToolchain } from '../../interop/go-program';
import { l2Advertisement, node, pool, service, slice } from '../../sources/k8s/cluster-fixtures';

const MEMBERLIST = 'github.com/hashicorp/memberlist';
const missingTool = !goToolchain().available
  ? goMissingMessage()
  : goPathWith(MEMBERLIST) === undefined
    ? `the memberlist source (${MEMBERLIST}) is not installed (Debian: apt-get install golang-github-hashicorp-memberlist-dev)`
    : undefined;
if (missingTool && process.env.CI) throw new Error(`${missingTool} (CI is set, so this is a failure)`);

/** A failure bound per step, not a measure: loading client-node alone takes seconds on a busy machine. */
const STEP_TIMEOUT_MS = 60_000;
/** Go memberlist's LAN defaults gossip a leave within a second; a push/pull round is 30 s, so allow two. */
const LEAVE_TIMEOUT_MS = 70_000;
const NS = 'metallb-system';
const MLB_HOSTS = { 'node-a': '127.0.0.1', 'node-b': '127.0.0.2' } as const;
const METALLB_NODE = 'node-c';
const METALLB_HOST = '127.0.0.3';
const ALL_NODES = [...Object.keys(MLB_HOSTS), METALLB_NODE];
/** IPs chosen so that MetalLB's hash gives each of the three nodes some (checked below, not assumed). */
const IPS = ['192.0.2.1', '192.0.2.2', '192.0.2.4', '192.0.2.7', '192.0.2.8', '192.0.2.10'];
const serviceName = (ip: string) => `web-${ip.split('.')[3]}`;

const execFileAsync = promisify(execFile);
let api: FakeApiServer;
let dir: string;
const processes: ChildProcess[] = [];
let output = '';

const speakerPodAt = (nodeName: string, ip: string): KubeObject => speakerPod(NS, nodeName, ip);

beforeAll(async () => {
  if (missingTool) return;
  const rbac = kubectlMissing() === undefined ? rbacFromManifestText((await kubectl(['kustomize', 'deploy/'])).stdout) : undefined;
  const pods = [...Object.entries(MLB_HOSTS), [METALLB_NODE, METALLB_HOST] as const].map(([n, ip]) => speakerPodAt(n, ip));
  api = await startFakeApiServer({ objects: pods, ...(rbac && { rbac }) });
  api.store.create(api.resourceType('', 'namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } as KubeObject);
  dir = mkdtempSync(join(tmpdir(), 'mlb-kpr-mixed-'));
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject) =>
    api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
  put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('public', ['192.0.2.0/28']));
  put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  for (const name of ALL_NODES) put('', 'nodes', 'v1', 'Node', node(name));
  for (const ip of IPS) {
    const name = serviceName(ip);
    put('', 'services', 'v1', 'Service', service(name, { ingress: [ip] }));
    const endpoints = ALL_NODES.map((n, i) => ({ ip: `10.0.${i}.${ip.split('.')[3]}`, node: n }));
    put('discovery.k8s.io', 'endpointslices', 'discovery.k8s.io/v1', 'EndpointSlice', slice(`${name}-x1`, name, endpoints));
  }
});

afterAll(async () => {
  for (const child of processes) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Status {
  readonly mlbOnlyInputs: { readonly allowed: boolean; readonly reason: string };
  readonly members: readonly { readonly name: string; readonly state: string; readonly mlb: boolean; readonly draining: boolean }[];
  readonly services: readonly { readonly service: string; readonly owner: string | null }[];
}

const status = (socket: string): Promise<Status | undefined> => speakerStatus<Status>(socket);

/** Service name -> owner, as one speaker sees it. */
function owners(s: Status | undefined): Record<string, string | null> {
  return Object.fromEntries((s?.services ?? []).map((e) => [e.service.replace(/^default\//, ''), e.owner]));
}

/** What MetalLB's speakers elect for every service among `nodes`: the first in hash order (all nodes serve). */
function metallbOwners(nodes: readonly string[]): Record<string, string> {
  return Object.fromEntries(IPS.map((ip) => [serviceName(ip), rankNodes(nodes, ip)[0]!]));
}

/** ServiceL2Status objects by service name -> node (status-less ones, just created, as null). */
function l2Statuses(): Record<string, string | null>[] {
  const objects = api.store.list(api.resourceType('metallb.io', 'servicel2statuses'), NS) as unknown as {
    metadata: { labels?: Record<string, string> };
    status?: { node?: string; serviceName?: string };
  }[];
  return objects.map((o) => ({ [o.metadata.labels?.['metallb.io/service-name'] ?? '?']: o.status?.node ?? null }));
}

const sameOwners = (expected: Record<string, string | null>) => (s: Status | undefined) =>
  JSON.stringify(Object.entries(owners(s)).sort()) === JSON.stringify(Object.entries(expected).sort());

function startMetallbSpeaker(goBinary: string, port: number, keyFile: string): { child: ChildProcess; lines: string[] } {
  const child = spawn(goBinary, ['-name', METALLB_NODE, '-bind', METALLB_HOST, '-port', String(port), '-key-file', keyFile], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  processes.push(child);
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  child.stderr?.on('data', (b: Buffer) => (output += `[${METALLB_NODE}] ${b.toString()}`));
  return { child, lines };
}

/** The MetalLB speaker's public member list (memberlist Members(): what MetalLB elects among). */
async function metallbMembers(speaker: { child: ChildProcess; lines: string[] }): Promise<string[]> {
  const before = speaker.lines.length;
  speaker.child.stdin!.write('members\n');
  const answer = await until('the MetalLB speaker to list its members', () =>
    speaker.lines.slice(before).find((l) => l.includes('"event":"members"')),
  );
  return (JSON.parse(answer) as { members: { name: string }[] }).members.map((m) => m.name).sort();
}

function startMlbSpeaker(
  name: keyof typeof MLB_HOSTS,
  port: number,
  keyDir: string,
  healthPort: number,
): { socket: string; child: ChildProcess } {
  const { socket, child } = spawnKubernetesSpeaker({
    api,
    dir,
    namespace: NS,
    node: name,
    bindAddress: MLB_HOSTS[name],
    bindPort: port,
    keyDir,
    healthPort,
    onOutput: (text) => (output += text),
  });
  processes.push(child);
  return { socket, child };
}

describe.skipIf(missingTool !== undefined)('a cluster of mlb speakers and a MetalLB speaker, in Kubernetes mode', () => {
  it(
    "elects exactly as MetalLB while the MetalLB speaker is a member (a drained mlb node keeps MetalLB's IPs), and uses mlb's inputs once it has left",
    async () => {
      const expectedMixed = metallbOwners(ALL_NODES);
      // The fixture is worth something only if MetalLB's hash gives IPs to every node, the MetalLB one included.
      expect(new Set(Object.values(expectedMixed))).toEqual(new Set(ALL_NODES));

      const keyDir = join(dir, 'ml_secret_key');
      mkdirSync(keyDir);
      // MetalLB's memberlist Secret: 16 random bytes, unpadded base64 (22 characters), mounted verbatim.
      writeFileSync(join(keyDir, 'secretkey'), randomBytes(16).toString('base64').replace(/=+$/, ''), { mode: 0o400 });
      const port = await freePortOnAll([...Object.values(MLB_HOSTS), METALLB_HOST]);
      const goBinary = buildGoProgram('memberlist-node', { gopath: [goPathWith(MEMBERLIST)!] });
      const metallb = startMetallbSpeaker(goBinary, port, join(keyDir, 'secretkey'));
      await until('the MetalLB speaker to start', () => metallb.lines.some((l) => l.includes('"event":"ready"')), STEP_TIMEOUT_MS);
      const speakers = [];
      for (const name of ['node-a', 'node-b'] as const)
        speakers.push({ name, ...startMlbSpeaker(name, port, keyDir, await freeLoopbackPort()) });
      const failing = (error: Error) => {
        throw new Error(`${error.message}\n${output}\n[${METALLB_NODE}] ${metallb.lines.slice(-20).join('\n')}`);
      };

      // Every mlb speaker finds the MetalLB one from its pod, sees it as a plain MetalLB speaker, and turns its own inputs off.
      for (const s of speakers) {
        const seen = await until(
          `${s.name} to see all three speakers and elect every service`,
          async () => {
            if (s.child.exitCode !== null) throw new Error(`${s.name} exited ${s.child.exitCode}`);
            const st = await status(s.socket);
            return st?.members.filter((m) => m.state === 'alive').length === 3 && sameOwners(expectedMixed)(st) && st;
          },
          STEP_TIMEOUT_MS,
        ).catch(failing);
        expect(seen.members.find((m) => m.name === METALLB_NODE)).toMatchObject({ mlb: false, state: 'alive' });
        expect(seen.mlbOnlyInputs.allowed).toBe(false);
        expect(seen.mlbOnlyInputs.reason).toContain(METALLB_NODE);
      }
      // MetalLB counts both mlb speakers among its own: it elects among the same three nodes.
      expect(await metallbMembers(metallb)).toEqual(ALL_NODES);
      // The mlb owners write their ServiceL2Status; the MetalLB node's services get none from mlb (MetalLB writes its own).
      const mlbOwned = Object.entries(expectedMixed).filter(([, owner]) => owner !== METALLB_NODE);
      const expectedL2 = mlbOwned.map(([svc, owner]) => ({ [svc]: owner }));
      const byService = (a: Record<string, unknown>[]) => [...a].sort((x, y) => Object.keys(x)[0]!.localeCompare(Object.keys(y)[0]!));
      await until(
        'one ServiceL2Status per mlb-owned service, naming its owner',
        () => JSON.stringify(byService(l2Statuses())) === JSON.stringify(byService(expectedL2)),
        STEP_TIMEOUT_MS,
      ).catch(failing);

      // Drain node-a: an mlb-only input. Once node-b has heard it, both still elect what MetalLB elects.
      const [a, b] = speakers as [(typeof speakers)[0], (typeof speakers)[0]];
      await execFileAsync(process.execPath, [MLB_BUNDLE, 'drain', '--socket', a.socket], { cwd: REPO_ROOT });
      await until(
        'node-b to see node-a draining',
        async () => (await status(b.socket))?.members.find((m) => m.name === 'node-a')?.draining === true,
        STEP_TIMEOUT_MS,
      ).catch(failing);
      expect(Object.values(expectedMixed)).toContain('node-a');
      for (const s of speakers) expect(owners(await status(s.socket))).toEqual(expectedMixed);

      // The MetalLB speaker leaves (its pod replaced by mlb's): mlb's inputs count again, and the drained node-a
      // hands every IP to node-b, the only undrained speaker left.
      metallb.child.stdin!.write('leave\n');
      const allOnB = Object.fromEntries(IPS.map((ip) => [serviceName(ip), 'node-b']));
      for (const s of speakers) {
        const after = await until(
          `${s.name} to elect node-b for every service once the MetalLB speaker has left`,
          async () => {
            const st = await status(s.socket);
            return st?.mlbOnlyInputs.allowed === true && sameOwners(allOnB)(st) && st;
          },
          LEAVE_TIMEOUT_MS,
        ).catch(failing);
        expect(after.members.find((m) => m.name === METALLB_NODE)?.state).toBe('left');
      }
      await until(
        'every ServiceL2Status to name node-b, one per service',
        () => JSON.stringify(byService(l2Statuses())) === JSON.stringify(byService(IPS.map((ip) => ({ [serviceName(ip)]: 'node-b' })))),
        STEP_TIMEOUT_MS,
      ).catch(failing);
      expect(api.audit.forbidden()).toEqual([]);
    },
    5 * STEP_TIMEOUT_MS,
  );
});
