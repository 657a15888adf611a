/**
 * The shell of `mlb arping` (runArping in src/cli/commands/arping.ts) with a fake packet socket and fake timers:
 * the probe loop, the output, closing the socket, mapping socket errors to exit 1, and the MAC -> node seam.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseIP, type IP } from '../../src/ip';
import { arpReplyTo, decodeArp, encodeArpFrame } from '../../src/announce/l2/arp-packet';
import { decodeEthernet } from '../../src/announce/l2/ethernet';
import { parseMAC } from '../../src/announce/l2/mac-address';
import { PacketSocketError, type PacketSocket, type PacketSocketOptions } from '../../src/native';
import { CommandError, UsageError } from '../../src/cli/exit-codes';
import { runArping, type ArpingDeps } from '../../src/cli/commands/arping';
import type { HostInterface } from '../../src/cli/arping/arping-interface';

const ip = (text: string): IP => parseIP(text) as IP;
const TARGET = ip('10.213.0.200');
const OWNERS = ['02:13:00:00:00:02', '02:13:00:00:00:03'];
const eth0: HostInterface = {
  name: 'eth0',
  mac: parseMAC('02:13:00:00:00:01'),
  up: true,
  addresses: [{ ip: ip('10.213.0.1'), prefix: 24 }],
};

interface Fake {
  deps: ArpingDeps;
  output: () => string;
  sent: Uint8Array[];
  socket: () => PacketSocket | undefined;
  opened: PacketSocketOptions[];
}

/** A segment where every MAC in `answerers` replies 1 ms (the next 2 ms) after each probe. */
function fake(
  answerers: string[],
  options: { refuseFirst?: boolean; openError?: PacketSocketError; nodes?: Record<string, string> } = {},
): Fake {
  let out = '';
  const sent: Uint8Array[] = [];
  const opened: PacketSocketOptions[] = [];
  let socket: PacketSocket | undefined;
  const deps: ArpingDeps = {
    interfaces: () => [eth0],
    now: () => performance.now(),
    write: (text) => {
      out += text;
    },
    openSocket: (o) => {
      if (options.openError) throw options.openError;
      opened.push(o);
      let closed = false;
      socket = {
        ifindex: 2,
        protocol: o.protocol,
        stats: { received: 0, sent: 0, sendQueueFull: 0, handlerErrors: 0 },
        get closed() {
          return closed;
        },
        send(frame) {
          if (options.refuseFirst && sent.length === 0) {
            sent.push(new Uint8Array(0));
            return false;
          }
          sent.push(frame);
          const request = decodeArp((decodeEthernet(frame) as { value: { payload: Uint8Array } }).value.payload);
          if (!request.ok) throw new Error('not an ARP probe');
          answerers.forEach((mac, i) => {
            const m = parseMAC(mac) as Uint8Array;
            const reply = encodeArpFrame(arpReplyTo(request.value, m, TARGET), request.value.senderMAC, m);
            setTimeout(() => o.onFrame(Buffer.from(reply), { ifindex: 2, pkttype: 'host' }), 1 + i);
          });
          return true;
        },
        addMembership: () => undefined,
        dropMembership: () => undefined,
        ref: () => undefined,
        unref: () => undefined,
        close: () => {
          closed = true;
        },
      };
      return socket;
    },
    ...(options.nodes
      ? {
          macOwners: {
            nodesOf: async (macs: readonly string[]) =>
              new Map(macs.filter((m) => options.nodes?.[m]).map((m) => [m, options.nodes?.[m] as string])),
          },
        }
      : {}),
  };
  return { deps, output: () => out, sent, socket: () => socket, opened };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

async function run(f: Fake, extra: { count?: number; json?: boolean; deadlineSeconds?: number } = {}) {
  const promise = runArping(
    {
      target: TARGET,
      count: extra.count ?? 3,
      json: extra.json ?? false,
      ...(extra.deadlineSeconds ? { deadlineSeconds: extra.deadlineSeconds } : {}),
    },
    f.deps,
  );
  // Settle the rejection handler now so a failing run does not surface as an unhandled rejection.
  promise.catch(() => undefined);
  await vi.runAllTimersAsync();
  return promise;
}

describe('runArping', () => {
  it('sends COUNT probes 1 s apart on an ARP socket with the reply filter, prints each reply, then the summary; closes the socket', async () => {
    const f = fake([OWNERS[0] as string]);
    const start = performance.now();
    const summary = await run(f);
    expect(f.sent).toHaveLength(3);
    expect(f.opened[0]).toMatchObject({ ifname: 'eth0', protocol: 'arp' });
    expect(f.opened[0]?.filter?.length).toBeGreaterThan(0);
    expect(f.socket()?.closed).toBe(true);
    expect(performance.now() - start).toBeGreaterThanOrEqual(3000);
    expect(summary).toMatchObject({ verdict: 'oneOwner', exitCode: 0, sent: 3 });
    const lines = f.output().split('\n');
    expect(lines[0]).toBe('ARPING 10.213.0.200 from 10.213.0.1 [02:13:00:00:00:01] eth0');
    expect(lines.filter((l) => l === 'reply from 10.213.0.200 [02:13:00:00:00:02] on eth0 1.000 ms')).toHaveLength(3);
    expect(f.output()).toContain('one owner: 10.213.0.200 is at 02:13:00:00:00:02\n');
  });

  it('two answerers: exit code 3, and the node behind each MAC when a lookup is injected', async () => {
    const f = fake(OWNERS, { nodes: { '02:13:00:00:00:03': 'node-b' } });
    const summary = await run(f, { count: 2, json: true });
    expect(summary.exitCode).toBe(3);
    const doc = JSON.parse(f.output());
    expect(doc.replies).toEqual([
      { mac: '02:13:00:00:00:02', count: 2, rttMs: { min: 1, avg: 1, max: 1 } },
      { mac: '02:13:00:00:00:03', count: 2, rttMs: { min: 2, avg: 2, max: 2 }, node: 'node-b' },
    ]);
    expect(f.output()).not.toContain('reply from');
  });

  it('a probe the kernel refuses is not counted; -w ends the run early', async () => {
    const f = fake([OWNERS[0] as string], { refuseFirst: true });
    const summary = await run(f, { count: 5, deadlineSeconds: 2 });
    expect(f.sent).toHaveLength(2);
    expect(summary.sent).toBe(1);
    expect(summary.replies[0]?.count).toBe(1);
  });

  it("a socket that cannot be opened is a CommandError (exit 1) with the socket's message", async () => {
    const denied = new PacketSocketError('permissionDenied', 'opening an AF_PACKET socket needs CAP_NET_RAW: run as root or grant it');
    const error = await run(fake([], { openError: denied })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect(error).toMatchObject({ code: 'permissionDenied', message: denied.message });
  });

  it('no interface for the target is a UsageError (exit 2)', async () => {
    const f = fake([]);
    const error = await runArping({ target: ip('192.0.2.1'), count: 1, json: false }, f.deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(f.opened).toHaveLength(0);
  });
});
