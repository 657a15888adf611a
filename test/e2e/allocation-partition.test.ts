/**
 * Three plain hosts in network namespaces; node-3 is cut off, restarted alone from a stale allocations.json
 * with far higher versions (a backup from another life), allocates from it on its own, and the partition heals:
 * every service keeps the IP it had on the side that kept running, on every node.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseNetns } from '../support/netns-lab';
import { DaemonLab, eventually, labConfig } from './daemon-lab';

const netns = canUseNetns();

const SERVICES = ['demo/cache', 'demo/db', 'demo/web'];
const EXTRA = ['cache', 'db']
  .map(
    (name) => `---
apiVersion: v1
kind: Service
metadata: { name: ${name}, namespace: demo }
spec:
  type: LoadBalancer
  ports: [{ port: 80, protocol: TCP }]
`,
  )
  .join('');

/** What node-3 brings back: every service elsewhere, versions far above anything the lab writes. */
const STALE_IPS: Record<string, string[]> = { 'demo/cache': ['10.213.0.217'], 'demo/db': ['10.213.0.218'], 'demo/web': ['10.213.0.219'] };
const STALE = `{"format":1,"version":1000,"allocator":"node-3","writers":["node-3"],"entries":[
${SERVICES.map((key, i) => JSON.stringify([key, STALE_IPS[key], 998 + i, 0, 1600000000000])).join(',\n')}
]}
`;

describe.skipIf(!netns.ok)(`a healed partition${netns.ok ? '' : ` (skipped: ${netns.why})`}`, () => {
  let lab: DaemonLab;
  beforeAll(() => {
    lab = new DaemonLab(3);
    writeFileSync(lab.configFile, labConfig(EXTRA));
    lab.startAll();
  });
  afterAll(() => lab?.destroy());

  /** Each service's IPs as `mlb status` on that node shows them; undefined while one has none. */
  const ipsOn = (name: string): Record<string, string[]> | undefined => {
    const services = lab.status(name).services;
    const out: Record<string, string[]> = {};
    for (const s of services) if (s.protocol === 'layer2' && s.ips.length > 0 && SERVICES.includes(s.service)) out[s.service] = s.ips;
    return SERVICES.every((key) => out[key]) ? out : undefined;
  };
  const agreeing = (names: string[]): Record<string, string[]> | undefined => {
    const views = names.map(ipsOn);
    const [first] = views;
    return first && views.every((v) => JSON.stringify(v) === JSON.stringify(first)) ? first : undefined;
  };
  const link = (name: string, state: 'up' | 'down'): void => {
    execFileSync('ip', ['-n', lab.host(name).netns, 'link', 'set', 'eth0', state]);
  };

  it('a node restarted alone from a stale, higher-version file moves no service when the partition heals', async () => {
    const all = lab.nodes.map((n) => n.name);
    const before = await eventually(() => agreeing(all), 30_000, 200);
    expect(Object.values(before).flat()).not.toContain(STALE_IPS['demo/web']![0]);

    // Cut node-3 off, and restart it alone from the stale file.
    link('node-3', 'down');
    const old = lab.daemon('node-3');
    old.child.kill('SIGKILL');
    await old.exited();
    writeFileSync(join(lab.dir, 'node-3', 'allocations.json'), STALE);
    lab.start('node-3');
    // Alone, it allocates from its file: the two sides now disagree on every service.
    expect(await eventually(() => ipsOn('node-3'), 40_000, 200)).toEqual(STALE_IPS);
    expect(agreeing(['node-1', 'node-2'])).toEqual(before);

    link('node-3', 'up');
    await eventually(
      () => lab.nodes.every((n) => lab.status(n.name).members.filter((m) => m.state === 'alive').length === 3) || undefined,
      40_000,
      200,
    );
    const healed = await eventually(() => agreeing(all), 30_000, 200);
    expect(healed).toEqual(before);
    // Whichever node merged the two tables first said which assignment it dropped, with both sides.
    const daemons = [...lab.daemons.values()];
    const conflict = (service: string) =>
      Promise.any(daemons.map((d) => d.waitFor((l) => l.event === 'allocationConflict' && l.service === service, 20_000)));
    for (const service of SERVICES) {
      expect(await conflict(service)).toMatchObject({
        level: 'warn',
        kept: { ips: before[service], restored: false },
        dropped: { ips: STALE_IPS[service], writer: 'node-3', restored: true },
      });
    }
  });
});
