/**
 * Gossip interop: mlb nodes and real Go memberlist nodes (Debian's v0.2.2, go/memberlist-node) in
 * one cluster, each process in its own network namespace on a lab bridge (test/support/netns-lab.ts), talking
 * over real UDP and TCP on 10.213.0.0/24 only. mlb runs its FAST profile, Go runs memberlist's LAN defaults as
 * MetalLB's speakers do; timers differ, the protocol must not.
 *
 * Every condition is a state both sides report (members with their states, counters, log lines), polled with
 * generous deadlines: the tests say what a user sees, never how fast, so a slow CI box cannot fail them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeNodeMeta, encodeNodeMeta, type NodeMeta } from '../../src/gossip/node-meta';
import { canUseNetns, NetnsLab } from '../support/netns-lab';
import { allSee, eventually, type Peer, PeerSpawner, views } from './gossip-peers';
import { buildGoProgram, goMissingMessage, goPathWith, goToolchain } from './go-program';

const MEMBERLIST = 'github.com/hashicorp/memberlist';
const netns = canUseNetns();
const go = goToolchain();
const gopath = goPathWith(MEMBERLIST);
const missingTool = !go.available
  ? goMissingMessage()
  : gopath === undefined
    ? `the memberlist source (${MEMBERLIST}) is not installed (Debian: apt-get install golang-github-hashicorp-memberlist-dev)`
    : undefined;
if (missingTool && process.env.CI) throw new Error(`${missingTool} (CI is set, so this is a failure)`);
const skipWhy = !netns.ok ? netns.why : missingTool;
if (skipWhy) console.warn(`skipping test/interop/gossip-memberlist.test.ts: ${skipWhy}`);

/** Join and convergence: a push/pull and a few gossip rounds; seconds at worst. */
const CONVERGE_MS = 20_000;
/** Crash detection: Go's LAN suspicion in a 4-node cluster can take up to ~24 s without confirmations. */
const DETECT_MS = 40_000;
const TEST_MS = 80_000;
/** Packets a member receives in a few probe rounds of an idle 4-node cluster (a ping and an ack or two a second each): the intruders' exposure window. */
const ROUNDS_OF_PACKETS = 8;

/** A MetalLB `memberlist` Secret's secretkey: 16 random bytes in unpadded standard base64 (22 characters). */
function metallbSecret(): string {
  const secret = randomBytes(16).toString('base64').replace(/=+$/, '');
  if (secret.length !== 22) throw new Error(`secret of ${secret.length} characters`);
  return secret;
}

describe.skipIf(skipWhy !== undefined)('mlb and Go memberlist 0.2.2 in one cluster, across network namespaces', () => {
  let goBinary: string;
  let tmp: string;
  /** Labs not yet destroyed: a test that timed out may still be running its body when afterAll comes. */
  const labs = new Set<NetnsLab>();

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'mlb-gossip-interop-'));
    goBinary = buildGoProgram('memberlist-node', { gopath: [gopath as string] });
  });
  afterAll(() => {
    for (const lab of labs) lab.destroy();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs a test in a fresh lab, destroyed (its processes killed first) whatever happens. */
  async function inLab(body: (spawn: PeerSpawner) => Promise<void>): Promise<void> {
    const lab = new NetnsLab();
    labs.add(lab);
    const spawn = new PeerSpawner(lab, goBinary);
    try {
      await body(spawn);
      if (process.env.MLB_INTEROP_VERBOSE) console.log(spawn.transcript(Number(process.env.MLB_INTEROP_VERBOSE) || 40));
    } catch (error) {
      if (error instanceof Error) error.message += `\n\nwhat each node printed last:\n${spawn.transcript()}`;
      throw error;
    } finally {
      lab.destroy();
      labs.delete(lab);
    }
  }

  const names = (peers: readonly Peer[]) => peers.map((p) => p.name);
  const converged = (peers: readonly Peer[]) =>
    eventually(
      `every node of ${names(peers).join(', ')} sees every other alive`,
      () => views(peers),
      (v) => allSee(v, peers, names(peers), 'alive'),
      { timeoutMs: CONVERGE_MS },
    );

  it(
    'mlb joins a Go cluster, a Go node joins mlb, and every node sees the others alive',
    () =>
      inLab(async (spawn) => {
        const g1 = await spawn.go('g1');
        const g2 = await spawn.go('g2', { join: [g1] });
        const m1 = await spawn.mlb('m1', { join: [g2] });
        expect(m1.events.find((e) => e.event === 'joined')).toMatchObject({ contacted: 1, errors: [] });
        const g3 = await spawn.go('g3', { join: [m1] });
        expect(g3.events.find((e) => e.event === 'joined')).toMatchObject({ contacted: 1 });
        expect(g3.events.find((e) => e.event === 'joined')).not.toHaveProperty('error');

        const all = [g1, g2, m1, g3];
        await converged(all);
        // What a MetalLB speaker acts on: memberlist's public member list, with mlb's address and port as advertised.
        for (const g of [g1, g2, g3]) expect((await g.publicMembers()).sort()).toEqual(['g1', 'g2', 'g3', 'm1']);
        expect((await g3.view()).get('m1')).toMatchObject({ addr: m1.host.ipv4, port: 7946, state: 'alive', incarnation: 1 });
        expect((await m1.view()).get('g3')).toMatchObject({ addr: g3.host.ipv4, port: 7946, state: 'alive' });
        // g3 learned of g1 and g2 only through mlb's answer to its join.
        for (const name of ['g1', 'g2'])
          expect(g3.events.some((e) => e.event === 'join' && (e.node as { name: string }).name === name)).toBe(true);
        await expectCleanTraffic(all);
      }),
    TEST_MS,
  );

  it(
    "each side detects the other's crash (kill -9): Go sees mlb dead, mlb sees Go dead",
    () =>
      inLab(async (spawn) => {
        const g1 = await spawn.go('g1');
        const m1 = await spawn.mlb('m1', { join: [g1] });
        const g2 = await spawn.go('g2', { join: [m1] });
        const m2 = await spawn.mlb('m2', { join: [g2] });
        await converged([g1, g2, m1, m2]);
        await expectCleanTraffic([g1, g2, m1, m2]);

        await m1.crash();
        await eventually(
          'the Go nodes and m2 see the crashed m1 dead',
          () => views([g1, g2, m2]),
          (v) => allSee(v, [g1, g2, m2], ['m1'], 'dead') && allSee(v, [g1, g2, m2], ['g1', 'g2', 'm2'], 'alive'),
          { timeoutMs: DETECT_MS },
        );
        // A dead node leaves memberlist's public member list: MetalLB stops counting it as a speaker.
        for (const g of [g1, g2]) expect((await g.publicMembers()).sort()).toEqual(['g1', 'g2', 'm2']);

        await g1.crash();
        await eventually(
          'm2 sees the crashed g1 dead',
          () => views([m2, g2]),
          (v) => v.m2?.g1 === 'dead' && v.m2?.g2 === 'alive' && v.g2?.m2 === 'alive',
          { timeoutMs: DETECT_MS },
        );
        expect((await m2.view()).get('m1')?.state).toBe('dead');
      }),
    TEST_MS,
  );

  it(
    'a graceful leave is seen as left, not dead, from both sides',
    () =>
      inLab(async (spawn) => {
        const g1 = await spawn.go('g1');
        const g2 = await spawn.go('g2', { join: [g1] });
        const m1 = await spawn.mlb('m1', { join: [g2] });
        await converged([g1, g2, m1]);

        // A Go node leaves as a MetalLB speaker does on shutdown (Leave(1 s)).
        expect(await g2.leave()).not.toHaveProperty('error');
        await eventually(
          'm1 and g1 see g2 left',
          () => views([g1, m1]),
          (v) => v.m1?.g2 === 'left' && v.g1?.g2 === 'left' && v.m1?.g1 === 'alive' && v.g1?.m1 === 'alive',
          { timeoutMs: CONVERGE_MS },
        );

        // mlb leaves: the leave goes out (broadcast, not a timeout) and Go records state 3, left.
        expect(await m1.leave()).toMatchObject({ outcome: 'broadcast' });
        const seen = await eventually(
          'g1 sees m1 left',
          () => g1.view(),
          (v) => v.get('m1')?.state === 'left',
          { timeoutMs: CONVERGE_MS },
        );
        expect(seen.get('m1')).toMatchObject({ state: 'left', addr: m1.host.ipv4 });
        expect(await g1.publicMembers()).toEqual(['g1']);
        // Go also fired its leave event for m1 with state 3.
        expect(
          g1.events.some(
            (e) =>
              e.event === 'leave' && (e.node as { name: string; state: number }).name === 'm1' && (e.node as { state: number }).state === 3,
          ),
        ).toBe(true);
      }),
    TEST_MS,
  );

  it(
    "with MetalLB's secretkey an encrypted mixed cluster works, and a node with another key is refused and counted",
    () =>
      inLab(async (spawn) => {
        const keyFile = join(tmp, 'secretkey');
        writeFileSync(keyFile, metallbSecret()); // verbatim, no newline, as Kubernetes mounts the Secret's key
        const wrongKeyFile = join(tmp, 'wrong-secretkey');
        writeFileSync(wrongKeyFile, metallbSecret());

        const g1 = await spawn.go('g1', { keyFile });
        const m1 = await spawn.mlb('m1', { keyFile, join: [g1] });
        const g2 = await spawn.go('g2', { keyFile, join: [m1] });
        const m2 = await spawn.mlb('m2', { keyFile, join: [g2] });
        const good = [g1, m1, g2, m2];
        await converged(good);
        await expectCleanTraffic(good);

        // Intruders with another key: a Go node joins through mlb, an mlb node joins through Go.
        const watching = watchStates(good);
        const [badGo, badMlb] = await Promise.all([
          spawn.go('xg', { keyFile: wrongKeyFile, join: [m1] }),
          spawn.mlb('xm', { keyFile: wrongKeyFile, join: [g1] }),
        ]);
        expect(badGo.events.find((e) => e.event === 'joined')).toMatchObject({ contacted: 0, error: expect.any(String) });
        expect(badMlb.events.find((e) => e.event === 'joined')).toMatchObject({ contacted: 0, errors: [expect.anything()] });
        // Go answers the undecryptable join with an error the intruder cannot decrypt either: counted there too.
        expect((await badMlb.counters()).drops.decryptFailed).toBeGreaterThan(0);

        // The refusals are counted: mlb's decryptFailed, Go's own log lines.
        await eventually(
          "m1 counts the Go intruder's undecryptable traffic",
          () => m1.counters(),
          (c) => (c.drops.decryptFailed ?? 0) > 0,
          { timeoutMs: CONVERGE_MS },
        );
        await eventually(
          "g1 logs the mlb intruder's undecryptable traffic",
          async () => g1.logLines(),
          (lines) => lines.some((l) => /No installed keys could decrypt/.test(l) && l.includes(`from=${badMlb.host.ipv4}:`)),
          { timeoutMs: CONVERGE_MS },
        );
        // Let a few more probe and gossip rounds pass while the intruders are up, then look again: measured in traffic
        // the mlb members received from the cluster (Go gossips every 200 ms and probes every second), not in time.
        const [base1, base2] = await Promise.all([m1.counters(), m2.counters()]);
        await eventually(
          'm1 and m2 to receive a few more gossip and probe rounds',
          () => Promise.all([m1.counters(), m2.counters()]),
          ([c1, c2]) =>
            (c1.packetsReceived as number) >= (base1.packetsReceived as number) + ROUNDS_OF_PACKETS &&
            (c2.packetsReceived as number) >= (base2.packetsReceived as number) + ROUNDS_OF_PACKETS,
          { timeoutMs: CONVERGE_MS },
        );
        const observed = await watching.stop();

        // Throughout: no correct node ever saw an intruder or saw a correct node in any state but alive.
        expect(observed.intruders).toEqual([]);
        expect(observed.notAlive).toEqual([]);
        expect(observed.samples).toBeGreaterThan(5);
        for (const bad of [badGo, badMlb]) expect([...(await bad.view()).keys()]).toEqual([bad.name]);
        expect(g1.events.some((e) => e.event === 'join' && ['xg', 'xm'].includes((e.node as { name: string }).name))).toBe(false);
        expect(m1.events.some((e) => e.event === 'join' && ['xg', 'xm'].includes((e.node as { name: string }).name))).toBe(false);
      }),
    TEST_MS,
  );

  it(
    'mixed clusters of 2 Go + 1 mlb and 1 Go + 2 mlb converge',
    () =>
      inLab(async (spawn) => {
        // Two independent clusters on one segment, started side by side; each node joins through the previous one.
        const twoGo = (async () => {
          const a = await spawn.go('a-g1');
          const b = await spawn.mlb('a-m1', { join: [a] });
          const c = await spawn.go('a-g2', { join: [b] });
          return [a, b, c];
        })();
        const twoMlb = (async () => {
          const a = await spawn.mlb('b-m1');
          const b = await spawn.go('b-g1', { join: [a] });
          const c = await spawn.mlb('b-m2', { join: [b] });
          return [a, b, c];
        })();
        const clusters = await Promise.all([twoGo, twoMlb]);
        for (const cluster of clusters) {
          const v = await converged(cluster);
          // Each cluster is exactly its three nodes: the other cluster on the same segment never leaks in.
          for (const p of cluster) expect(Object.keys(v[p.name] ?? {}).sort()).toEqual(names(cluster).sort());
          await expectCleanTraffic(cluster);
        }
      }),
    TEST_MS,
  );

  it(
    "the Go node sees mlb's node meta byte for byte, and its updates",
    () =>
      inLab(async (spawn) => {
        const meta: NodeMeta = {
          labels: { 'kubernetes.io/hostname': 'm1', 'topology.kubernetes.io/zone': 'rack-7' },
          conditions: [{ type: 'NetworkUnavailable', status: 'False' }],
          draining: false,
          warmingUp: true,
        };
        const bytes = encodeNodeMeta(meta);
        const m1 = await spawn.mlb('m1', { meta: bytes });
        const g1 = await spawn.go('g1', { join: [m1] });

        const seen = await eventually(
          'g1 lists m1',
          () => g1.view(),
          (v) => v.get('m1')?.state === 'alive',
          { timeoutMs: CONVERGE_MS },
        );
        const hex = seen.get('m1')?.meta ?? '';
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        expect(decodeNodeMeta(Uint8Array.from(Buffer.from(hex, 'hex')))).toEqual(meta);

        // `mlb drain` changes the meta: Go gets an update and the new bytes.
        const drained = encodeNodeMeta({ ...meta, draining: true, warmingUp: false });
        await m1.request(`meta ${Buffer.from(drained).toString('hex')}`, 'metaSet');
        const update = await g1.next('update', { timeoutMs: CONVERGE_MS, match: (e) => (e.node as { name: string }).name === 'm1' });
        const updated = decodeNodeMeta(Uint8Array.from(Buffer.from((update.node as { meta: string }).meta, 'hex')));
        expect(updated).toMatchObject({ draining: true, warmingUp: false, labels: meta.labels });
        expect((await g1.view()).get('m1')).toMatchObject({ meta: Buffer.from(drained).toString('hex'), state: 'alive' });
      }),
    TEST_MS,
  );
});

/**
 * Neither side complains about the other's traffic: mlb dropped nothing it received (no decode, CRC, key or
 * protocol-version failure), and Go memberlist logged no error or warning (it logs every packet or stream it
 * cannot handle, every conflicting address and every refutation).
 */
async function expectCleanTraffic(peers: readonly Peer[]): Promise<void> {
  for (const p of peers) {
    if (p.kind === 'mlb') {
      expect((await p.counters()).drops, `${p.describe()} dropped traffic`).toEqual({});
      expect(
        p.logLines().filter((l) => /"level":"(warn|error)"/.test(l)),
        `${p.describe()} warned`,
      ).toEqual([]);
    } else {
      expect(
        p.logLines().filter((l) => /\[(ERR|WARN)\]/.test(l)),
        `${p.describe()} complained`,
      ).toEqual([]);
    }
  }
}

/**
 * Samples the correct nodes' views until stopped: any intruder they list (in any state) and any correct node
 * they see in a state other than alive.
 */
function watchStates(good: readonly Peer[]) {
  const goodNames = new Set(good.map((p) => p.name));
  const intruders: string[] = [];
  const notAlive: string[] = [];
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const v = await views(good);
      samples++;
      for (const [observer, seen] of Object.entries(v)) {
        for (const [name, state] of Object.entries(seen)) {
          if (!goodNames.has(name)) intruders.push(`${observer} lists ${name} (${state})`);
          else if (state !== 'alive') notAlive.push(`${observer} sees ${name} ${state}`);
        }
      }
      // A fixed period on purpose: this watches for something that must not happen during the whole window, so
      // there is no event to wait for; a sample every 200 ms is far shorter than a suspicion lasts.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { intruders, notAlive, samples };
    },
  };
}
