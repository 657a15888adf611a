/**
 * Issue 5's acceptance on plain hosts, in network namespaces: three nodes running `mlb daemon` with one YAML
 * file, a client looking at the VIPs with iputils arping, curl and its neighbour table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseNetns } from '../support/netns-lab';
import { API_IP, API_SERVICE, DaemonLab, WEB_SERVICE, eventually } from './daemon-lab';

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
    for (const [service, ip] of [[API_SERVICE, API_IP], [WEB_SERVICE, await eventually(() => lab.ipOf('node-1', WEB_SERVICE))]] as const) {
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
});
