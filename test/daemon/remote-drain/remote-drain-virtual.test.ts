/**
 * `mlb drain NODE` (src/daemon/remote-drain/remote-drain.ts) between two simulated hosts, each with real
 * SpeakerFlags on memory state files and gossip as a bus on virtual time: the request is stamped with the asking
 * node's clock (a simulated cluster in 2031, far from the wall clock), the target records the drain with its own
 * clock, and after the target crashes its restarted process is still drained by node-1's request.
 */
import { describe, expect, it } from 'vitest';
import { DRAIN_FILE } from '../../../src/daemon/drain-record';
import { decodeRecords, encodeRecords } from '../../../src/daemon/records/records-codec';
import { MLB_RECORDS_VERSION } from '../../../src/daemon/records-protocol';
import { RemoteDrain } from '../../../src/daemon/remote-drain';
import { SpeakerFlags } from '../../../src/daemon/speaker-flags';
import { MemoryStateFiles, VirtualNetwork } from '../../../src/runtime';
import { SILENT_LOG, type Log } from '../../../src/runtime/log';

const HOSTS = { 'node-1': '198.51.100.11', 'node-2': '198.51.100.12' } as const;
type Name = keyof typeof HOSTS;
const SIMULATED_START = Date.UTC(2031, 5, 1, 8, 0, 0);
/** Gossip's delivery delay on the bus. */
const HOP_MS = 5;

const quiet: Log = SILENT_LOG;

describe('remote drain on virtual time', () => {
  it("is stamped with the asking node's clock, recorded with the target's, and survives the target's crash", async () => {
    const net = new VirtualNetwork({ seed: 1, startMs: SIMULATED_START });
    const disks = { 'node-1': new MemoryStateFiles('node-1'), 'node-2': new MemoryStateFiles('node-2') };
    const drains = new Map<Name, RemoteDrain>();

    async function boot(self: Name): Promise<{ drain: RemoteDrain; flags: SpeakerFlags }> {
      const rt = net.host(HOSTS[self]);
      const flags = await SpeakerFlags.load(disks[self].forProcess(rt.host), rt.now(), quiet, () => undefined, { runtime: rt });
      const drain = new RemoteDrain({
        self,
        authenticated: true,
        flags,
        runtime: rt,
        logger: quiet,
        onDrainChanged: () => undefined,
        members: () => Object.keys(HOSTS).map((name) => ({ name, state: 'alive', mlb: true })),
        wire: {
          broadcast: (records) => {
            const bytes = encodeRecords(records, MLB_RECORDS_VERSION);
            void rt.after(HOP_MS, () => {
              const received = decodeRecords(bytes);
              for (const [name, other] of drains)
                if (name !== self) for (const r of received.ok ? received.value.records : []) other.receive(r);
            });
          },
          relay: () => undefined,
          stateChanged: () => undefined,
        },
      });
      drains.set(self, drain);
      return { drain, flags };
    }

    const one = await boot('node-1');
    const two = await boot('node-2');
    await net.advance(60_000);
    const askedAt = net.now();
    const answer = await one.drain.ask('drain', 'node-2');
    expect(answer.request).toEqual({ target: 'node-2', action: 'drain', requestedBy: 'node-1', seq: askedAt });
    await net.advance(HOP_MS);
    await net.runUntil(() => one.drain.requests().get('node-2')?.outcome === 'applied', { timeoutMs: 1_000 });
    expect(two.flags.isDrained).toBe(true);
    expect(one.drain.requests().get('node-2')).toMatchObject({ requestedBy: 'node-1', seq: askedAt, at: askedAt, outcome: 'applied' });
    expect(JSON.parse(disks['node-2'].peek(DRAIN_FILE)!)).toEqual({
      drained: true,
      since: new Date(askedAt + HOP_MS).toISOString(),
      requestedBy: 'node-1',
      seq: askedAt,
    });

    net.crash(HOSTS['node-2']);
    await net.advance(10_000);
    const restarted = await boot('node-2');
    expect(restarted.flags.isDrained).toBe(true);
    expect(restarted.drain.requests().get('node-2')).toMatchObject({
      action: 'drain',
      requestedBy: 'node-1',
      seq: askedAt,
      outcome: 'applied',
    });
  });
});
