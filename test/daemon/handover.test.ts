/**
 * The graceful handover's decision with many VIPs: every held IP is waited for until its successor (the layer-2
 * winner once this node drains) has announced it, and the owner of each comes from one index over the election's
 * outcomes (layer2Owners) rather than a scan per IP.
 */
import { describe, expect, it } from 'vitest';
import { handoverStatus, HANDOVER_TIMEOUT_MS, layer2Owners } from '../../src/daemon/handover';

const VIPS = 10_000;
const ipOf = (i: number) => `10.214.${(256 + i) >> 8}.${(256 + i) & 0xff}`;
const held = Array.from({ length: VIPS }, (_, i) => ipOf(i));
/** After node-a drains, node-b and node-c take the services in turn; one BGP service shares an IP and is ignored. */
const outcomes = [
  ...held.map((ip, i) => ({ protocol: 'layer2', ips: [ip], winner: i % 2 === 0 ? 'node-b' : 'node-c' })),
  { protocol: 'bgp', ips: [held[0]!], winner: 'node-a' },
];

describe('handover of 10,000 VIPs', () => {
  it('waits for the successor of every held IP, and is done once each has announced', () => {
    const owners = layer2Owners(outcomes);
    const inputs = { held, self: 'node-a', startedAt: 0, now: 100, ownerOf: (ip: string) => owners.get(ip) ?? null };

    const none = handoverStatus({ ...inputs, claimed: new Set() });
    expect(none.done).toBe(false);
    expect(none.waiting).toHaveLength(VIPS);
    expect(none.waiting[0]).toEqual({ ip: ipOf(0), successor: 'node-b' });
    expect(none.waiting[1]).toEqual({ ip: ipOf(1), successor: 'node-c' });

    const allButOne = handoverStatus({ ...inputs, claimed: new Set(held.slice(1)) });
    expect(allButOne.waiting).toEqual([{ ip: ipOf(0), successor: 'node-b' }]);

    expect(handoverStatus({ ...inputs, claimed: new Set(held) })).toMatchObject({ done: true, reason: 'allClaimed', orphaned: [] });
    expect(handoverStatus({ ...inputs, now: HANDOVER_TIMEOUT_MS, claimed: new Set() })).toMatchObject({ done: true, reason: 'timedOut' });
  });

  it('an IP whose election still names this node, or nobody, goes down with it (no successor to wait for)', () => {
    const owners = layer2Owners([
      { protocol: 'layer2', ips: ['10.214.1.1'], winner: 'node-a' },
      { protocol: 'layer2', ips: ['10.214.1.2'], winner: null },
    ]);
    const status = handoverStatus({
      held: ['10.214.1.1', '10.214.1.2', '10.214.1.3'],
      self: 'node-a',
      startedAt: 0,
      now: 0,
      claimed: new Set(),
      ownerOf: (ip) => owners.get(ip) ?? null,
    });
    expect(status).toMatchObject({ done: true, reason: 'allClaimed', orphaned: ['10.214.1.1', '10.214.1.2', '10.214.1.3'] });
  });
});
