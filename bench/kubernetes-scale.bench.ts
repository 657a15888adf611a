// bench/kubernetes-scale: mlb's Kubernetes mode against a large cluster in the fake API server
// (test/support/fake-apiserver: real HTTP, watches, resourceVersions, 410 Gone): 10,000 LoadBalancer Services, two
// EndpointSlices each, 1,000 Nodes with their speaker Pods, a pool and an L2Advertisement, shaped as a real API
// server returns them (bench/k8s-scale/cluster-objects.ts). The objects are put in the store directly: the
// starting line of every row is "the API server already holds the cluster".
//
// Rows (what | measured | target/baseline | ok):
//   a. `mlb controller` (dist/mlb.mjs, spawned) from spawn to every Service having status.loadBalancer.ingress,
//      against the baseline: a client that knows every answer and only PATCHes /status, one request per Service,
//      at its best concurrency (best of BASELINE_CONCURRENCIES, each from spawn too); the ratio is held to
//      CONTROLLER_RATIO_TARGET.
//   b. `mlb daemon --kubernetes --no-announce` on node-0000 (spawned): RSS once its informers have synced and it
//      settled (max over RSS_WINDOW_MS after SETTLE_MS), target RSS_TARGET_BYTES; its peak (VmHWM) as information.
//   c. with both running and settled: every watch expired (history compacted, then ERROR 410 in each stream, what
//      a real API server sends when a client's resourceVersion is too old), so every informer lists again; then
//      one new Service (namespace `barrier`, served only from node-0000) as a barrier: once it is written and
//      announced, everything the relist caused has happened too. Held to zero: writes to the API not about the
//      barrier Service, and the speaker's announce/withdraw/owner changes not about it. (--no-announce binds no
//      VIP; a re-bind would follow an announce change, which this row counts.)
// Exits 1 when a target is missed. No root, no namespaces.
// Run: npm run bench kubernetes-scale   BENCH_K8S_SERVICES=10000 BENCH_K8S_NODES=1000 (shrink to develop)
// BENCH_K8S_CONCURRENCY=8,16,64 (the baseline's tries)  BENCH_K8S_PARTS=controller,speaker
// BENCH_K8S_CPU_PROF=DIR (CPU profiles of the controller and the speaker)
// BENCH_K8S_HEAP_SNAPSHOT=DIR (a heap snapshot of the settled speaker's main thread: what its RSS holds)
// BENCH_K8S_SPEAKER_NODE_FLAGS="..." (more node flags for the speaker alone, e.g. --max-semi-space-size=1)
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeApiServer, type AuditEntry, type FakeApiServer, type KubeObject } from '../test/support/fake-apiserver';
import { freeLoopbackPort } from '../test/support/free-port';
import { memoryOf } from './scale/proc-stat';
import { endpointNodes, endpointSlices, nodeName, service } from './k8s-scale/cluster-objects';
import { clearServiceStatuses, seedCluster, whenAllHaveIngress } from './k8s-scale/scale-cluster';
import { HEAP_SNAPSHOT_DIR, type Started, startBaseline, startController, startSpeaker } from './k8s-scale/processes';

const SERVICES = Number(process.env['BENCH_K8S_SERVICES'] ?? 10_000);
const NODES = Number(process.env['BENCH_K8S_NODES'] ?? 1_000);
/** Concurrencies the baseline is tried at; it is reported at its fastest. */
const BASELINE_CONCURRENCIES = (process.env['BENCH_K8S_CONCURRENCY'] ?? '8,16,64').split(',').map(Number);
/**
 * The controller may take this many times the baseline: it also starts a bundle, lists every Service and the
 * configuration, allocates, and PUTs whole objects (as MetalLB) and events; twice the bare minimum is what a
 * controller with bounded concurrent writes reaches.
 */
const CONTROLLER_RATIO_TARGET = 2;
/** The speaker's RSS target with the whole cluster in its informers. */
const RSS_TARGET_BYTES = 250 * 1024 * 1024;
/** After the speaker logs configLoaded, time for its first writes and GC before RSS is sampled. */
const SETTLE_MS = 5_000;
const RSS_WINDOW_MS = 5_000;
const RSS_SAMPLE_MS = 250;
/** Failure bound for each wait, far above any expected duration (not a measure). */
const STEP_LIMIT_MS = 600_000;
const BARRIER_NAMESPACE = 'barrier';
/** BENCH_K8S_PARTS=speaker (or controller): only those rows, while developing; the relist row needs both. */
const PARTS = new Set((process.env['BENCH_K8S_PARTS'] ?? 'controller,speaker').split(','));

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Row {
  readonly what: string;
  readonly measured: string;
  readonly target: string;
  readonly ok: boolean | undefined;
}
const rows: Row[] = [];

function log(text: string): void {
  console.log(`  .. ${text}`);
}

async function within<T>(what: string, promise: Promise<T>, process?: Started): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not within ${STEP_LIMIT_MS / 1000} s\n${process?.output().slice(-4000) ?? ''}`)),
      STEP_LIMIT_MS,
    );
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(what: string, check: () => boolean, process?: Started): Promise<void> {
  const deadline = Date.now() + STEP_LIMIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${STEP_LIMIT_MS / 1000} s\n${process?.output().slice(-4000) ?? ''}`);
    if (process && process.child.exitCode !== null) throw new Error(`${what}: the process exited\n${process.output().slice(-4000)}`);
    await sleep(50);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function baselineRow(api: FakeApiServer): Promise<number> {
  let best = Infinity;
  let bestAt = 0;
  for (const concurrency of BASELINE_CONCURRENCIES) {
    clearServiceStatuses(api);
    const all = whenAllHaveIngress(api, SERVICES);
    const start = performance.now();
    const run = startBaseline(api, SERVICES, concurrency);
    await within(`baseline at concurrency ${concurrency}`, all, run);
    const ms = performance.now() - start;
    const code = await run.exited;
    if (code !== 0) throw new Error(`baseline exited ${code}: ${run.output()}`);
    log(`baseline, ${concurrency} in flight: ${seconds(ms)}`);
    if (ms < best) [best, bestAt] = [ms, concurrency];
  }
  log(`baseline at its best: ${concurrency(bestAt)}`);
  return best;
  function concurrency(c: number) {
    return `${c} requests in flight`;
  }
}

async function controllerRow(api: FakeApiServer, dir: string, baselineMs: number): Promise<Started> {
  clearServiceStatuses(api);
  const all = whenAllHaveIngress(api, SERVICES);
  const start = performance.now();
  const controller = startController(api, dir, { metrics: await freeLoopbackPort(), health: await freeLoopbackPort() });
  const first = whenAllHaveIngress(api, 1).then(() => performance.now() - start);
  await within('the controller writing every status', all, controller);
  const ms = performance.now() - start;
  log(`controller: first status after ${seconds(await first)} (start, lists, first reconcile), the last after ${seconds(ms)}`);
  const ratio = ms / baselineMs;
  rows.push({
    what: `controller: start -> ${SERVICES} statuses written`,
    measured: seconds(ms),
    target: `baseline ${seconds(baselineMs)}`,
    ok: undefined,
  });
  rows.push({
    what: 'controller / baseline',
    measured: `${ratio.toFixed(2)}x`,
    target: `<= ${CONTROLLER_RATIO_TARGET}x`,
    ok: ratio <= CONTROLLER_RATIO_TARGET,
  });
  return controller;
}

async function speakerRow(api: FakeApiServer, dir: string, bindPort: number): Promise<Started> {
  const speaker = startSpeaker(api, {
    dir,
    node: nodeName(0),
    bindAddress: '127.0.0.1',
    bindPort,
    healthPort: await freeLoopbackPort(),
    metricsPort: await freeLoopbackPort(),
  });
  const start = performance.now();
  await until('the speaker loading the cluster', () => speaker.logEvents(['configLoaded']).length > 0, speaker);
  log(`speaker synced ${SERVICES} services, ${SERVICES * 2} slices, ${NODES} nodes in ${seconds(performance.now() - start)}`);
  await sleep(SETTLE_MS);
  let max = 0;
  for (let t = 0; t < RSS_WINDOW_MS; t += RSS_SAMPLE_MS) {
    max = Math.max(max, memoryOf(speaker.child.pid!, 'VmRSS') ?? 0);
    await sleep(RSS_SAMPLE_MS);
  }
  const peak = memoryOf(speaker.child.pid!, 'VmHWM') ?? 0;
  rows.push({
    what: `speaker RSS, informers synced (${SERVICES} svc, ${SERVICES * 2} slices, ${NODES} nodes)`,
    measured: `${(max / MB).toFixed(0)} MB`,
    target: `<= ${RSS_TARGET_BYTES / MB} MB`,
    ok: max <= RSS_TARGET_BYTES,
  });
  rows.push({ what: 'speaker RSS peak (VmHWM)', measured: `${(peak / MB).toFixed(0)} MB`, target: '(information)', ok: undefined });
  if (HEAP_SNAPSHOT_DIR) await heapSnapshotOf(speaker, HEAP_SNAPSHOT_DIR);
  return speaker;
}

/** Signals the settled speaker to write its heap snapshot (started with --heapsnapshot-signal) and waits for it. */
async function heapSnapshotOf(speaker: Started, dir: string): Promise<void> {
  const written = () => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'));
  const before = written().length;
  speaker.child.kill('SIGUSR2');
  await until('the speaker writing its heap snapshot', () => written().length > before, speaker);
  // Written in one go, then closed: wait until its size stops growing.
  let size = -1;
  for (;;) {
    const file = join(dir, written().sort().at(-1)!);
    const now = statSync(file).size;
    if (now === size && now > 0) break;
    size = now;
    await sleep(1_000);
  }
  log(`speaker heap snapshot written in ${dir}`);
}

const CHANGE_EVENTS = ['serviceAnnounced', 'serviceWithdrawn', 'ownerChanged'];
const isWrite = (e: AuditEntry) => e.method !== 'GET';
const isList = (e: AuditEntry) => e.method === 'GET' && !/(^|&)watch=(true|1)/.test(e.query) && e.name === undefined;

/** Whether a store change is about the barrier Service (its own writes, its events, its ServiceL2Status). */
function aboutBarrier(object: KubeObject): boolean {
  const o = object as { metadata: { namespace?: string }; status?: { serviceNamespace?: string }; involvedObject?: { namespace?: string } };
  return (
    o.metadata.namespace === BARRIER_NAMESPACE ||
    o.status?.serviceNamespace === BARRIER_NAMESPACE ||
    o.involvedObject?.namespace === BARRIER_NAMESPACE
  );
}

async function relistRow(api: FakeApiServer, controller: Started, speaker: Started): Promise<void> {
  // The speaker announces once memberlist has settled, after its caches synced: wait for all it owns (the
  // services with an endpoint on its node), each with its ServiceL2Status, before expiring anything.
  const owned = Array.from({ length: SERVICES }, (_, i) => i).filter((i) => endpointNodes(i, NODES).includes(nodeName(0))).length;
  const l2Type = api.resourceType('metallb.io', 'servicel2statuses');
  await until(
    `the speaker announcing its ${owned} services`,
    () =>
      new Set(speaker.logEvents(['serviceAnnounced']).map((e) => e['service'])).size === owned &&
      api.store.list(l2Type).filter((o) => (o as { status?: { node?: string } }).status?.node === nodeName(0)).length === owned,
    speaker,
  );
  // Both settled: nothing written for a while (the speaker's own first writes for what it owns are done).
  let writes = -1;
  while (api.audit.filter({}).filter(isWrite).length !== writes) {
    writes = api.audit.filter({}).filter(isWrite).length;
    await sleep(2_000);
  }
  const announcedBefore = speaker.logEvents(CHANGE_EVENTS).length;
  api.audit.clear();
  const changes: KubeObject[] = [];
  const unsubscribe = api.store.subscribe((c) => changes.push(c.object));
  api.faults.compact();
  const expired = api.faults.expireWatches();
  const relisted = (subject: string, resource: string) => api.audit.filter({ subject, resource }).some((e) => isList(e) && e.code === 200);
  const speakerSubject = 'system:serviceaccount:metallb-system:speaker';
  const controllerSubject = 'system:serviceaccount:metallb-system:controller';
  await until(
    'every informer listing again',
    () =>
      ['services', 'endpointslices', 'nodes', 'pods'].every((r) => relisted(speakerSubject, r)) && relisted(controllerSubject, 'services'),
  );
  log(`${expired} watches expired; both processes listed again`);
  // The barrier: a new Service served only by node-0000, so this speaker must announce it.
  const barrier = { ...service(SERVICES), metadata: { ...service(SERVICES).metadata, namespace: BARRIER_NAMESPACE } } as KubeObject;
  api.store.create(api.resourceType('', 'namespaces'), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: BARRIER_NAMESPACE },
  } as KubeObject);
  for (const slice of endpointSlices(SERVICES, 1)) {
    api.store.create(api.resourceType('discovery.k8s.io', 'endpointslices'), {
      ...slice,
      metadata: { ...slice.metadata, namespace: BARRIER_NAMESPACE },
    } as KubeObject);
  }
  api.store.create(api.resourceType('', 'services'), barrier);
  const barrierKey = `${BARRIER_NAMESPACE}/${barrier.metadata.name}`;
  await until(
    'the barrier service announced',
    () => speaker.logEvents(['serviceAnnounced']).some((e) => e['service'] === barrierKey),
    speaker,
  );
  await whenAllHaveIngress(api, SERVICES + 1);
  unsubscribe();
  // The barrier's own address changes the pool's counters: that status write is the barrier's too.
  const barrierConsequence = (e: AuditEntry) =>
    e.resource === 'servicel2statuses' || (e.resource === 'ipaddresspools' && e.subresource === 'status');
  const otherWrites = api.audit.filter({}).filter((e) => isWrite(e) && e.namespace !== BARRIER_NAMESPACE && !barrierConsequence(e));
  const otherChanges = changes.filter((o) => !aboutBarrier(o) && !['Namespace', 'EndpointSlice', 'IPAddressPool'].includes(o.kind ?? ''));
  const otherAnnouncements = speaker
    .logEvents(CHANGE_EVENTS)
    .slice(announcedBefore)
    .filter((e) => e['service'] !== barrierKey);
  rows.push({
    what: 'relist after 410: API writes not about the new service',
    measured: `${otherWrites.length} requests, ${otherChanges.length} objects changed`,
    target: '0',
    ok: otherWrites.length === 0 && otherChanges.length === 0,
  });
  rows.push({
    what: 'relist after 410: announce/withdraw/owner changes',
    measured: String(otherAnnouncements.length),
    target: '0',
    ok: otherAnnouncements.length === 0,
  });
  for (const e of otherWrites.slice(0, 5)) log(`unexpected write: ${e.method} ${e.path} (${e.subject})`);
  for (const o of otherChanges.slice(0, 5))
    log(`unexpected change: ${o.kind} ${o.metadata.namespace}/${o.metadata.name} ${JSON.stringify((o as { status?: unknown }).status)}`);
  for (const e of otherAnnouncements.slice(0, 5)) log(`unexpected change: ${JSON.stringify(e)}`);
  void controller;
}

function printRows(): void {
  const header = ['what', 'measured', 'target/baseline', 'ok'];
  const cells = [header, ...rows.map((r) => [r.what, r.measured, r.target, r.ok === undefined ? '-' : r.ok ? 'yes' : 'NO'])];
  const widths = header.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  for (const c of cells)
    console.log(
      c
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join(' | ')
        .trimEnd(),
    );
}

async function main(): Promise<void> {
  const [l1, l5] = loadavg();
  console.log(
    `kubernetes-scale: ${SERVICES} services, ${SERVICES * 2} endpointslices, ${NODES} nodes; load average ${l1!.toFixed(2)} ${l5!.toFixed(2)}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'mlb-k8s5-'));
  const api = await startFakeApiServer();
  const bindPort = await freeLoopbackPort();
  const seedStart = performance.now();
  // Node 0's speaker listens on 127.0.0.1; the others' pods have addresses nothing answers on (refused at once).
  seedCluster(api, { services: SERVICES, nodes: NODES }, (i) => (i === 0 ? '127.0.0.1' : `127.3.${i >> 8}.${i & 255}`));
  log(`seeded the store in ${seconds(performance.now() - seedStart)}`);
  let controller: Started | undefined;
  let speaker: Started | undefined;
  try {
    if (PARTS.has('controller')) controller = await controllerRow(api, join(dir, 'controller'), await baselineRow(api));
    if (PARTS.has('speaker')) speaker = await speakerRow(api, join(dir, 'speaker'), bindPort);
    if (controller && speaker) await relistRow(api, controller, speaker);
  } finally {
    controller?.child.kill('SIGTERM');
    speaker?.child.kill('SIGTERM');
    await Promise.all([controller?.exited, speaker?.exited]);
    await api.close();
  }
  const [a1, a5] = loadavg();
  console.log(`load average at the end ${a1!.toFixed(2)} ${a5!.toFixed(2)}`);
  printRows();
  if (rows.some((r) => r.ok === false)) process.exit(1);
}

main().catch((error: unknown) => {
  console.error((error as Error).stack ?? error);
  process.exit(1);
});
