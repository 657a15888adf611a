/**
 * SpeakerFlags (src/daemon/speaker-flags.ts) on a simulated host: drain.json and restarts.json in memory state
 * files that outlive the process, the clock virtual. A drain survives a crash of the node, stamped with the node's
 * clock; a crash of a running node makes its next start warm up, and the warm-up ends on virtual time; a drain whose
 * write was still in flight when the node died never happened.
 */
import { describe, expect, it } from 'vitest';
import { SpeakerFlags } from '../../src/daemon/speaker-flags';
import { DRAIN_FILE } from '../../src/daemon/drain-record';
import { WARM_UP_BASE_MS } from '../../src/daemon/damping/warm-up-policy';
import { MemoryStateFiles, VirtualNetwork } from '../../src/runtime';
import { type Log } from '../../src/runtime/log';

const IP = '198.51.100.7';

function recorder(): { logger: Log; events: string[] } {
  const events: string[] = [];
  const at = () => (fields: object) => void events.push(String((fields as { event?: unknown }).event));
  return { logger: { debug: at(), info: at(), warn: at(), error: at() }, events };
}

/** One daemon process on the host: loads its flags at the current virtual time and gets running. */
async function boot(net: VirtualNetwork, files: MemoryStateFiles) {
  const log = recorder();
  const rt = net.host(IP);
  const flags = await SpeakerFlags.load(files.forProcess(rt.host), rt.now(), log.logger, () => undefined, { runtime: rt });
  await flags.markRunning();
  return { flags, events: log.events };
}

describe('SpeakerFlags on a simulated host', () => {
  it('a drain survives the node crashing, stamped with its clock, and the restart warms up on virtual time', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const files = new MemoryStateFiles('node-a');
    const first = await boot(net, files);
    expect(first.flags.warmingUp).toBe(false);
    await net.advance(60_000);
    const drainedAt = net.now();
    expect(await first.flags.setDrained(true, { requestedBy: 'node-b', seq: 42 })).toBe(true);
    expect(JSON.parse(files.peek(DRAIN_FILE)!)).toEqual({
      drained: true,
      since: new Date(drainedAt).toISOString(),
      requestedBy: 'node-b',
      seq: 42,
    });

    net.crash(IP);
    await net.advance(5_000);
    const restartedAt = net.now();
    const again = await boot(net, files);
    expect(again.flags.isDrained).toBe(true);
    expect(again.flags.appliedRequest).toEqual({ requestedBy: 'node-b', seq: 42 });
    expect(again.flags.warmingUp).toBe(true);
    expect(again.flags.warmUpUntil).toBe(restartedAt + WARM_UP_BASE_MS);
    await net.advance(restartedAt + WARM_UP_BASE_MS - 1 - net.now());
    expect(again.flags.warmingUp).toBe(true);
    await net.advance(1);
    expect(again.flags.warmingUp).toBe(false);
    expect(again.events).toContain('warmUpEnded');
  });

  it('a drain still being written when the node died never happened: the restart takes part, and is not drained', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const files = new MemoryStateFiles('node-a');
    const first = await boot(net, files);
    void first.flags.setDrained(true);
    net.crash(IP);
    const again = await boot(net, files);
    expect(again.flags.isDrained).toBe(false);
    expect(files.peek(DRAIN_FILE)).toBeUndefined();
  });
});
