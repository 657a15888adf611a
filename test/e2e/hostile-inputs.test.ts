/**
 * A careless operator on a running cluster: three hosts with three VIPs, each host reading its own file. One host's
 * file is cut off mid-document (a copy interrupted), one is emptied, one is replaced by a 50 MB file, and a fourth
 * host starts from a restored backup of allocations.json carrying a higher version. Through all of it a client
 * must see every VIP answer from exactly one MAC, no service may change IP or owner, and every node's status must
 * name the nodes whose configuration differs from what runs.
 */
import { readFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseNetns } from '../support/netns-lab';
import { API_SERVICE, DaemonLab, WEB_SERVICE, eventually, labConfig } from './daemon-lab';

const netns = canUseNetns();
const event = (name: string) => (l: Record<string, unknown>) => l.event === name;

const DB_SERVICE = 'demo/db';
const DB_SERVICE_YAML = `---
apiVersion: v1
kind: Service
metadata: { name: db, namespace: demo }
spec:
  type: LoadBalancer
  ports: [{ port: 8080, protocol: TCP }]
`;
const SERVICES = [WEB_SERVICE, API_SERVICE, DB_SERVICE] as const;
/** A 50 MB file: the good configuration followed by comment lines, as an operator's generator gone wrong makes. */
const BIG_FILE_BYTES = 50 * 1024 * 1024;
/** How long the cluster is watched after the damage: several reload polls, gossip rounds and self-checks. */
const WATCH_MS = 15_000;

describe.skipIf(!netns.ok)(`a careless operator on three hosts${netns.ok ? '' : ` (skipped: ${netns.why})`}`, () => {
  let lab: DaemonLab;
  beforeAll(async () => {
    lab = new DaemonLab(4);
    writeFileSync(lab.configFile, labConfig(DB_SERVICE_YAML));
    for (const node of lab.nodes) lab.ownConfig(node.name);
    for (const name of ['node-1', 'node-2', 'node-3']) lab.start(name);
    for (const name of ['node-1', 'node-2', 'node-3']) await lab.daemon(name).waitFor(event('gossipStarted'));
  }, 30_000);
  afterAll(() => lab?.destroy());

  it('keeps every VIP on one MAC and every IP in place, and every node names the nodes whose file differs', async () => {
    const running = ['node-1', 'node-2', 'node-3'];
    const settledOwners = await eventually(
      () => {
        const views = running.map((n) => lab.status(n));
        if (!views.every((v) => v.members.filter((m) => m.state === 'alive').length === 3)) return undefined;
        const owners = new Map<string, string>();
        for (const service of SERVICES) {
          const seen = new Set(views.map((v) => v.services.find((s) => s.service === service)?.owner ?? ''));
          const [owner] = [...seen];
          if (seen.size !== 1 || !owner) return undefined;
          owners.set(service, owner);
        }
        return owners;
      },
      40_000,
      200,
    );
    const ips = new Map(SERVICES.map((s) => [s, lab.ipOf('node-1', s)!]));
    const allocator = lab.statusJSON('node-1').allocation.allocator as string;
    expect(running).toContain(allocator);
    const clients = [...ips.values()].map((ip) => ({ ip, loop: lab.clientLoop(ip) }));

    // The allocator's file, cut off inside a document, as `head -c` or an interrupted copy leaves it.
    const good = readFileSync(lab.configOf(allocator), 'utf8');
    let cut = Math.floor(good.length * 0.6);
    while (good[cut - 1] === '\n') cut -= 1;
    writeFileSync(lab.configOf(allocator), good.slice(0, cut));
    // An owner's file (another node's, if the allocator owns everything) emptied.
    const owners = [...settledOwners.values()];
    const emptied = owners.find((n) => n !== allocator) ?? running.find((n) => n !== allocator)!;
    writeFileSync(lab.configOf(emptied), '');
    // The third node's file replaced (atomically) by 50 MB of a valid configuration that is mostly comments.
    const third = running.find((n) => n !== allocator && n !== emptied)!;
    const filler = '# generated\n'.repeat(Math.ceil((BIG_FILE_BYTES - good.length) / 12));
    writeFileSync(`${lab.configOf(third)}.new`, good + filler);
    renameSync(`${lab.configOf(third)}.new`, lab.configOf(third));
    // A fourth node restored from an old backup whose table claims a higher version and other addresses.
    const forged = {
      format: 1,
      version: 1_000,
      allocator: 'node-4',
      writers: ['node-4'],
      entries: [
        [DB_SERVICE, ['10.213.0.219'], 1_000, 0, Date.now() - 86_400_000],
        [WEB_SERVICE, ['10.213.0.218'], 999, 0, Date.now() - 86_400_000],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    };
    mkdirSync(join(lab.dir, 'node-4'), { recursive: true });
    writeFileSync(join(lab.dir, 'node-4', 'allocations.json'), JSON.stringify(forged));
    lab.start('node-4');
    await lab.daemon('node-4').waitFor(event('gossipStarted'));

    const deadline = Date.now() + WATCH_MS;
    const macRounds: Map<string, string[]>[] = [];
    while (Date.now() < deadline) {
      macRounds.push(new Map([...ips.values()].map((ip) => [ip, lab.arpingMacs(ip, 1)])));
    }
    const samples = await Promise.all(clients.map(async ({ ip, loop }) => ({ ip, samples: await loop.drain() })));

    // Watched all along, not once: several ARP rounds and a steady stream of requests through every VIP.
    expect(macRounds.length).toBeGreaterThanOrEqual(3);
    for (const { ip, samples: seen } of samples) expect(seen.length, `requests to ${ip}`).toBeGreaterThanOrEqual(20);
    for (const round of macRounds) {
      for (const [ip, macs] of round) expect(macs.length, `${ip} answered by ${macs.join(', ') || 'nobody'}`).toBe(1);
    }
    for (const { ip, samples: seen } of samples) {
      const failures = seen.filter((s) => s.node === null);
      expect(failures, `${ip}: ${failures.map((f) => f.error).join(', ')}`).toEqual([]);
      expect(new Set(seen.map((s) => s.node)).size, `${ip} answered by ${[...new Set(seen.map((s) => s.node))].join(', ')}`).toBe(1);
    }
    for (const damaged of [allocator, emptied, third]) expect(lab.statusJSON(damaged).config.state, `${damaged}'s own file`).toBe('stale');
    for (const name of [...running, 'node-4']) {
      for (const service of SERVICES) expect(lab.ipOf(name, service), `${service} on ${name}`).toBe(ips.get(service));
      const named = lab.configDifferences(name);
      for (const damaged of [allocator, emptied, third]) expect(named, `${name}'s status`).toContain(damaged);
    }
  }, 120_000);
});
