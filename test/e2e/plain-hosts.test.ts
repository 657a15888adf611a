/**
 * mlb on plain hosts, in network namespaces: three nodes running `mlb daemon` with one YAML
 * file, a client looking at the VIPs with iputils arping, curl and its neighbour table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MLB_BUNDLE } from '../cli/run-cli';
import { canUseNetns } from '../support/netns-lab';
import { API_IP, API_SERVICE, DaemonLab, WEB_SERVICE, eventually, labConfig } from './daemon-lab';

const netns = canUseNetns();
const event = (name: string) => (l: Record<string, unknown>) => l.event === name;

describe.skipIf(!netns.ok)(`three plain hosts${netns.ok ? '' : ` (skipped: ${netns.why})`}`, () => {
  let lab: DaemonLab;
  beforeAll(async () => {
    lab = new DaemonLab(3);
    lab.startAll();
    for (const node of lab.nodes) await lab.daemon(node.name).waitFor(event('gossipStarted'));
  }, 30_000);
  afterAll(() => lab?.destroy());

  it('gives a service without an IP the same IP on every node', async () => {
    const ip = await eventually(() => lab.ipOf('node-1', WEB_SERVICE));
    expect(ip).toMatch(/^10\.213\.0\.2\d\d$/);
    for (const node of lab.nodes) expect(await eventually(() => lab.ipOf(node.name, WEB_SERVICE))).toBe(ip);
  });

  it('answers each VIP from exactly one MAC, the owner mlb explain names, whose server takes the connection', async () => {
    for (const [service, ip] of [
      [API_SERVICE, API_IP],
      [WEB_SERVICE, await eventually(() => lab.ipOf('node-1', WEB_SERVICE))],
    ] as const) {
      const owner = await eventually(() => lab.explain('node-2', service)[0]?.winner ?? undefined);
      const macs = await eventually(() => {
        const m = lab.arpingMacs(ip);
        return m.length > 0 ? m : undefined;
      });
      expect(macs).toEqual([lab.macOf(owner)]);
      for (const node of lab.nodes) expect(lab.ownerOf(node.name, service)).toBe(owner);
      expect(await eventually(() => lab.curl(ip))).toBe(owner);
    }
  });

  /** The owner and the next node in hash order, as a node that is not the owner explains them. */
  function ranked(service: string): [string, string] {
    const explanation = lab.explain('node-1', service)[0]!;
    const eligible = explanation.candidates.filter((c) => c.eligible).map((c) => c.node);
    expect(eligible.length).toBeGreaterThanOrEqual(2);
    return [eligible[0]!, eligible[1]!];
  }

  const observer = (not: string) => lab.nodes.map((n) => n.name).find((n) => n !== not && lab.daemons.get(n)?.child.exitCode === null)!;
  const until = async (check: () => boolean, timeoutMs?: number): Promise<true> => {
    try {
      return await eventually(() => (check() ? true : undefined), timeoutMs);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${situation()}`);
    }
  };

  /** What the lab looks like, for a failure message. */
  function situation(): string {
    const live = lab.nodes.map((n) => n.name).filter((n) => lab.daemons.get(n)?.child.exitCode === null);
    const owners = live.map((n) => {
      try {
        return `${n} sees ${API_SERVICE} on ${lab.ownerOf(n, API_SERVICE)}`;
      } catch (e) {
        return `${n}: ${(e as Error).message}`;
      }
    });
    return [`client neighbour ${API_IP}: ${lab.clientNeighbour(API_IP)}`, `arping: ${lab.arpingMacs(API_IP, 1).join(' ')}`, ...owners].join(
      '\n',
    );
  }

  async function restart(name: string): Promise<void> {
    const daemon = lab.start(name);
    await daemon.waitFor(event('gossipStarted'));
    await until(() => lab.status(observer(name)).members.some((m) => m.name === name && m.state === 'alive'));
  }

  it("the owner's metrics carry metallb_speaker_announced and the layer2 counters with MetalLB's labels", async () => {
    const owner = await eventually(() => lab.ownerOf('node-1', API_SERVICE) ?? undefined);
    expect(lab.arpingMacs(API_IP, 1)).toEqual([lab.macOf(owner)]);
    const exposition = await eventually(() => {
      const text = lab.metrics(owner);
      return /^metallb_layer2_requests_received\{ip="10\.213\.0\.210"\} [1-9]/m.test(text) ? text : undefined;
    });
    expect(exposition).toMatch(
      new RegExp(
        `^metallb_speaker_announced\\{(?=.*ip="${API_IP.replace(/\./g, '\\.')}")(?=.*node="${owner}")(?=.*protocol="layer2")(?=.*service="${API_SERVICE}").*\\} 1$`,
        'm',
      ),
    );
    expect(exposition).toMatch(/^metallb_layer2_responses_sent\{ip="10\.213\.0\.210"\} [1-9]/m);
    expect(exposition).toMatch(/^metallb_layer2_gratuitous_sent\{ip="10\.213\.0\.210"\} [1-9]/m);
    const other = lab.nodes.map((n) => n.name).find((n) => n !== owner)!;
    expect(lab.metrics(other)).not.toMatch(new RegExp(`^metallb_speaker_announced\\{.*ip="${API_IP.replace(/\./g, '\\.')}"`, 'm'));
  });

  it("mlb drain moves a node's IPs away and mlb undrain lets it take part again", async () => {
    const [owner, next] = ranked(API_SERVICE);
    const drain = spawnSync(process.execPath, [MLB_BUNDLE, 'drain', '--socket', lab.socket(owner)], { encoding: 'utf8' });
    expect(drain.status).toBe(0);
    expect(drain.stdout).toContain('draining');
    await until(() => lab.clientNeighbour(API_IP) === lab.macOf(next) && lab.curl(API_IP) === next);
    expect(lab.explain(next, API_SERVICE)[0]!.candidates.find((c) => c.node === owner)?.reason).toBe('nodeDraining');
    expect(spawnSync(process.execPath, [MLB_BUNDLE, 'undrain', '--socket', lab.socket(owner)]).status).toBe(0);
    await until(() => lab.explain(next, API_SERVICE)[0]!.candidates.find((c) => c.node === owner)?.reason !== 'nodeDraining');
  }, 60_000);

  it('a failing health check moves the VIP away; failing everywhere announces nothing and explain says why', async () => {
    const webIP = (await eventually(() => lab.ipOf('node-1', WEB_SERVICE)))!;
    const [owner] = ranked(WEB_SERVICE);
    lab.setHealthy(owner, false);
    await until(() => lab.ownerOf(observer(owner), WEB_SERVICE) !== owner && lab.curl(webIP) !== owner && lab.curl(webIP) !== undefined);
    for (const node of lab.nodes) lab.setHealthy(node.name, false);
    await until(() => lab.ownerOf('node-1', WEB_SERVICE) === null);
    const explanation = lab.explain('node-1', WEB_SERVICE)[0]!;
    expect(explanation.winner).toBeNull();
    expect(explanation.candidates.map((c) => c.reason)).toEqual(lab.nodes.map(() => 'healthCheckFailing'));
    await until(() => lab.arpingMacs(webIP).length === 0);
    for (const node of lab.nodes) lab.setHealthy(node.name, true);
    await until(() => lab.curl(webIP) !== undefined);
  }, 60_000);

  it('a service added to the file is announced everywhere; an invalid edit keeps every VIP and says where', async () => {
    const added = `---
apiVersion: v1
kind: Service
metadata: { name: extra, namespace: demo, annotations: { metallb.io/loadBalancerIPs: 10.213.0.215 } }
spec: { type: LoadBalancer, ports: [{ port: 8080, protocol: TCP }] }
`;
    writeFileSync(lab.configFile, labConfig(added));
    const written = Date.now();
    await until(() => lab.nodes.every((n) => lab.ownerOf(n.name, 'demo/extra') !== null) && lab.arpingMacs('10.213.0.215', 1).length === 1);
    console.log(`new service announced everywhere ${Date.now() - written} ms after the edit`);
    writeFileSync(lab.configFile, readFileSync(lab.configFile, 'utf8').replace('10.213.0.200-10.213.0.220', '10.213.0.220-10.213.0.200'));
    for (const node of lab.nodes) {
      const stale = await lab.daemon(node.name).waitFor(event('configStale'));
      expect(JSON.stringify(stale.errors)).toMatch(/mlb\.yaml:5:\d+: error/);
    }
    expect(lab.arpingMacs(API_IP)).toHaveLength(1);
    expect(lab.arpingMacs('10.213.0.215')).toHaveLength(1);
    for (const node of lab.nodes) expect(lab.metrics(node.name)).toMatch(/^metallb_k8s_client_config_stale_bool 1$/m);
    writeFileSync(lab.configFile, labConfig());
    await until(() => lab.ownerOf('node-1', 'demo/extra') === null);
  }, 60_000);

  it('another machine answering for a VIP is a conflict naming it, in status, logs and mlb arping', async () => {
    const [owner] = ranked(API_SERVICE);
    const intruder = lab.nodes.map((n) => n.name).find((n) => n !== owner)!;
    lab.lab.execIn(lab.host(intruder), 'ip', ['addr', 'add', `${API_IP}/32`, 'dev', 'eth0']);
    try {
      const arping = spawnSync(
        'ip',
        [
          'netns',
          'exec',
          lab.client.netns,
          process.execPath,
          MLB_BUNDLE,
          'arping',
          API_IP,
          '-c',
          '2',
          '--json',
          '--socket',
          lab.socket(owner),
        ],
        { encoding: 'utf8' },
      );
      expect(arping.status).toBe(3);
      const replies = (JSON.parse(arping.stdout) as { replies: { mac: string; node?: string }[] }).replies;
      expect(replies.map((r) => r.node).sort()).toEqual([owner, intruder].sort());
      // The owner's self-check probes every 3 s (sooner after a membership change).
      const conflict = await eventually(
        () =>
          (lab.status(owner) as unknown as { conflicts: { ip: string; mac: string; node: string | null }[] }).conflicts.find(
            (c) => c.ip === API_IP,
          ),
        45_000,
        500,
      );
      expect(conflict).toMatchObject({ mac: lab.macOf(intruder), node: intruder });
      await lab.daemon(owner).waitFor((l) => l.event === 'splitBrainDetected' && l.ip === API_IP);
      // The gauge counts every (IP, MAC) conflict any member reports; this one is among them. Should another member
      // report one too, every node's list is printed so that the run says which (a false alarm is a bug to chase).
      const active = Number(/^mlb_conflicts_active (\d+)$/m.exec(lab.metrics(owner))?.[1]);
      if (active !== 1)
        console.log(
          'conflicts as each node lists them:',
          JSON.stringify(
            lab.nodes.map((n) => ({ node: n.name, conflicts: (lab.status(n.name) as unknown as { conflicts: unknown[] }).conflicts })),
          ),
        );
      expect(active).toBeGreaterThanOrEqual(1);
    } finally {
      lab.lab.execIn(lab.host(intruder), 'ip', ['addr', 'del', `${API_IP}/32`, 'dev', 'eth0']);
      // The intruder's answers may have left the client pointing at it; the next test starts from a clean cache.
      lab.lab.execIn(lab.client, 'ip', ['neigh', 'flush', 'to', API_IP]);
    }
  }, 60_000);

  it("kill -9 of the owner: the client's neighbour entry moves to the next node in hash order, and no kernel answers for the dead one", async () => {
    const [owner, next] = ranked(API_SERVICE);
    expect(await eventually(() => lab.curl(API_IP))).toBe(owner);
    expect(lab.clientNeighbour(API_IP)).toBe(lab.macOf(owner));
    lab.daemon(owner).child.kill('SIGKILL');
    await lab.daemon(owner).exited();
    await until(() => lab.clientNeighbour(API_IP) === lab.macOf(next));
    // The dead daemon left the VIP on its mlb0, but arp_ignore keeps its kernel from answering for it.
    expect(lab.arpingMacs(API_IP, 3)).toEqual([lab.macOf(next)]);
    expect(lab.explain(next, API_SERVICE)[0]!.candidates.find((c) => c.node === owner)?.reason).toBe('notLiveMember');
    expect(await eventually(() => lab.curl(API_IP))).toBe(next);
    await restart(owner);
    // Back from a crash it warms up (flap damping), so the IP stays where it is.
    expect(
      lab
        .status(owner)
        .services.find((s) => s.service === API_SERVICE)
        ?.candidates.find((c) => c.node === owner)?.reason,
    ).toBe('nodeWarmingUp');
    expect(lab.ownerOf(owner, API_SERVICE)).toBe(next);
  }, 60_000);

  it("the owner's link goes down: the next node takes over; when it comes back the cluster heals", async () => {
    const [owner, next] = ranked(API_SERVICE);
    expect(await eventually(() => lab.curl(API_IP))).toBe(owner);
    lab.lab.unplug(lab.host(owner));
    await until(() => lab.clientNeighbour(API_IP) === lab.macOf(next));
    expect(lab.arpingMacs(API_IP)).toEqual([lab.macOf(next)]);
    lab.lab.plug(lab.host(owner));
    await until(() => lab.status(next).members.filter((m) => m.state === 'alive').length === 3, 20_000);
    // Healed: both agree on the owner and only its MAC answers. Read together: the owner back from the outage may
    // take the IP back a moment later (a planned move), so an answer read before the owner is read can be the
    // previous owner's.
    const healed = () => {
      const elected = lab.ownerOf(next, API_SERVICE);
      if (elected === undefined || elected === null || elected !== lab.ownerOf(owner, API_SERVICE)) return false;
      const macs = lab.arpingMacs(API_IP);
      return macs.length === 1 && macs[0] === lab.macOf(elected) && lab.ownerOf(next, API_SERVICE) === elected;
    };
    await until(healed);
  }, 60_000);

  // Under the whole suite on a 2-core machine this failed in 2 of 5 runs (and passes alone every time); the cause is
  // not found yet (a gap seen by the client, or a late move, under CPU starvation). One retry keeps a consistent
  // failure red while that is investigated; a retry that was needed shows in the reporter's output.
  it(
    'SIGTERM: the next owner announces while the old one still answers, so the client sees no gap',
    { retry: 1, timeout: 60_000 },
    async () => {
      // A retry starts from three running daemons, as the first attempt did.
      for (const node of lab.nodes) if (lab.daemon(node.name).child.exitCode !== null) await restart(node.name);
      const [owner, next] = ranked(API_SERVICE);
      const loop = lab.clientLoop(API_IP);
      await until(() => loop.samples.some((s) => s.node === owner));
      expect(lab.daemon(owner).child.exitCode, `${owner} exited before the SIGTERM: ${lab.daemon(owner).stderr.join('')}`).toBeNull();
      const signalledAt = Date.now();
      lab.daemon(owner).child.kill('SIGTERM');
      expect(await lab.daemon(owner).exited(), lab.daemon(owner).stderr.join('') || JSON.stringify(lab.daemon(owner).lines.slice(-5))).toBe(
        0,
      );
      const exitedAt = Date.now();
      // Answers sent after the owner is gone, from another node: only those show where the client ended. (An answer
      // from `next` before the SIGTERM, as a brief move under load can give, says nothing about the handover.)
      await until(() => loop.samples.filter((s) => s.t > exitedAt && s.node !== null).length >= 5);
      const samples = loop.stop();
      const from = samples.findIndex((s) => s.node === owner && s.t <= signalledAt);
      const answered = samples.slice(from);
      expect(answered.filter((s) => s.node === null).map((s) => `${s.t - answered[0]!.t} ms: ${s.error}`)).toEqual([]);
      const moves = lab.nodes
        .flatMap((n) =>
          lab
            .daemon(n.name)
            .lines.filter(event('ownerChanged'))
            .filter((l) => l.service === API_SERVICE)
            .map((l) => `${n.name} ${String(l.ts)}: ${(l.from as string[]).join(',')} -> ${(l.to as string[]).join(',')}`),
        )
        .slice(-12);
      // The client ends where the survivors' election says. Usually that is `next`; a node restarted by an earlier
      // test may finish its warm-up meanwhile and take the IP back (seen under load): a move the cluster decided.
      const elected = lab.explain(next, API_SERVICE)[0]?.winner;
      expect(elected).not.toBe(owner);
      expect(answered.at(-1)?.node, `after the SIGTERM of ${owner}; owner changes seen:\n${moves.join('\n')}`).toBe(elected);
      const done = lab.daemon(owner).lines.find(event('handoverDone'));
      expect(done?.reason).toBe('allClaimed');
      await restart(owner);
    },
  );

  it('restarting every node one by one, and killing the allocator, keeps every IP', async () => {
    const before = await eventually(() => lab.ipOf('node-1', WEB_SERVICE));
    for (const node of lab.nodes) {
      lab.daemon(node.name).child.kill('SIGTERM');
      // A graceful stop exits 0 (a link dump finishing after the VIP binder closed once made it exit 1).
      expect(
        await lab.daemon(node.name).exited(),
        lab.daemon(node.name).stderr.join('') || JSON.stringify(lab.daemon(node.name).lines.slice(-3)),
      ).toBe(0);
      await restart(node.name);
    }
    for (const node of lab.nodes) expect(lab.ipOf(node.name, WEB_SERVICE)).toBe(before);
    const allocator = (lab.status('node-1') as unknown as { allocation: { allocator: string } }).allocation.allocator;
    lab.daemon(allocator).child.kill('SIGKILL');
    const survivor = observer(allocator);
    await until(() => (lab.status(survivor) as unknown as { allocation: { allocator: string } }).allocation.allocator !== allocator);
    expect(lab.ipOf(survivor, WEB_SERVICE)).toBe(before);
    await restart(allocator);
    for (const node of lab.nodes) expect(lab.ipOf(node.name, WEB_SERVICE)).toBe(before);
  }, 120_000);
});
