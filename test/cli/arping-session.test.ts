/**
 * The pure core of `mlb arping` beyond one probe (src/cli/arping/arping-session.ts): matching replies with
 * round-trip times from an injected clock, the schedule (count, -w, the late-reply window) and the verdicts with
 * their exit codes, and the printed text. The probe frames and the kernel filter are tested with their module
 * (test/announce/l2/arping/neighbor-probe.test.ts). No root, no sockets.
 */
import { describe, expect, it } from 'vitest';
import { type IP } from '../../src/ip';
import { ArpOperation, encodeArpFrame } from '../../src/announce/l2/arp-packet';
import { BROADCAST_MAC } from '../../src/announce/l2/mac-address';
import {
  ARPING_EXIT_CODES,
  ARPING_LATE_REPLY_MS,
  ARPING_PROBE_INTERVAL_MS,
  ArpingSession,
  headerLine,
  replyLine,
  summaryJSON,
  summaryText,
  verdictLine,
  withNodes,
  type ArpingInterface,
} from '../../src/cli/arping/arping-session';
import {
  arpReplyFrame,
  eth0,
  ip,
  naFrame,
  OUR_MAC,
  PEER_A,
  PEER_B,
  probeFor,
  TARGET4,
  TARGET6,
} from '../announce/l2/arping/probe-fixtures';

function session(target: IP, options: { count?: number; deadlineMs?: number; iface?: ArpingInterface } = {}): ArpingSession {
  const iface = options.iface ?? eth0;
  return new ArpingSession({
    target,
    iface,
    probe: probeFor(target, iface),
    count: options.count ?? 3,
    startMs: 1000,
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
  });
}

describe('schedule', () => {
  it('COUNT probes one interval apart, then the late-reply window', () => {
    const s = session(TARGET4, { count: 3 });
    const at: number[] = [];
    for (let due = s.nextProbeAt(); due !== undefined; due = s.nextProbeAt()) {
      at.push(due);
      s.recordProbe(due, true);
    }
    expect(at).toEqual([1000, 2000, 3000]);
    expect(s.endsAt()).toBe(3000 + ARPING_LATE_REPLY_MS);
    expect(s.isOver(3999)).toBe(false);
    expect(s.isOver(4000)).toBe(true);
    expect(s.summary().sent).toBe(3);
  });

  it('-w caps the session: no probe is due at or after the deadline', () => {
    const s = session(TARGET4, { count: 5, deadlineMs: 2000 });
    expect(s.endsAt()).toBe(3000);
    s.recordProbe(1000, true);
    s.recordProbe(2000, true);
    expect(s.nextProbeAt()).toBeUndefined();
  });

  it('a probe the kernel refused is not counted as sent, and the schedule moves on', () => {
    const s = session(TARGET4, { count: 2 });
    s.recordProbe(1000, false);
    expect(s.nextProbeAt()).toBe(1000 + ARPING_PROBE_INTERVAL_MS);
    s.recordProbe(2000, true);
    expect(s.summary().sent).toBe(1);
  });
});

describe('matching replies (ARP)', () => {
  it('an ARP reply for the target to our MAC is a reply, timed from the latest probe', () => {
    const s = session(TARGET4);
    s.recordProbe(1000, true);
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4), 1000.4123)).toEqual({ reply: { mac: '02:13:00:00:00:02', rttMs: 0.412, probe: 1 } });
    s.recordProbe(2000, true);
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4), 2001.5).reply?.rttMs).toBe(1.5);
    s.recordProbe(3000, true);
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4), 3000.25).reply?.probe).toBe(3);
    const summary = s.summary();
    expect(summary.replies).toEqual([{ mac: '02:13:00:00:00:02', count: 3, rttMs: { min: 0.25, avg: 0.721, max: 1.5 } }]);
    expect(summary.verdict).toBe('oneOwner');
    expect(summary.exitCode).toBe(0);
  });

  it('Linux answers an RFC 5227 probe with target IP 0.0.0.0: still ours by target MAC', () => {
    const s = session(TARGET4);
    s.recordProbe(1000, true);
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4, OUR_MAC, ip('0.0.0.0')), 1001).reply?.mac).toBe('02:13:00:00:00:02');
  });

  it('ignores what is not an answer to our question', () => {
    const s = session(TARGET4);
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4), 999).ignored).toBe('beforeFirstProbe');
    s.recordProbe(1000, true);
    const request = encodeArpFrame(
      { operation: ArpOperation.request, senderMAC: PEER_A, senderIP: ip('10.213.0.2'), targetMAC: new Uint8Array(6), targetIP: TARGET4 },
      BROADCAST_MAC,
      PEER_A,
    );
    const gratuitous = encodeArpFrame(
      { operation: ArpOperation.reply, senderMAC: PEER_B, senderIP: TARGET4, targetMAC: BROADCAST_MAC, targetIP: TARGET4 },
      BROADCAST_MAC,
      PEER_B,
    );
    expect(s.receive(request, 1001).ignored).toBe('notAReply');
    expect(s.receive(arpReplyFrame(PEER_A, ip('10.213.0.9')), 1001).ignored).toBe('otherTarget');
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4, PEER_B), 1001).ignored).toBe('notToUs');
    expect(s.receive(gratuitous, 1001).ignored).toBe('notToUs');
    expect(s.receive(naFrame(PEER_A, TARGET6), 1001).ignored).toBe('otherProtocol');
    expect(s.receive(new Uint8Array(5), 1001).ignored).toBe('undecodable');
    const truncated = arpReplyFrame(PEER_A, TARGET4).slice(0, 30);
    expect(s.receive(truncated, 1001).ignored).toBe('undecodable');
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4), 1000 + 3 * 1000 + ARPING_LATE_REPLY_MS).ignored).toBe('afterEnd');
    expect(s.summary().replies).toEqual([]);
  });
});

describe('verdicts', () => {
  it('no reply: exit 1, said plainly', () => {
    const s = session(TARGET4, { count: 2 });
    s.recordProbe(1000, true);
    s.recordProbe(2000, true);
    const summary = s.summary();
    expect(summary).toMatchObject({ verdict: 'noReply', exitCode: 1, sent: 2, replies: [] });
    expect(verdictLine(summary)).toBe('no reply: nothing answered for 10.213.0.200 on eth0 (2 probe(s))');
  });

  it('two MACs: SPLIT BRAIN, exit 3, naming both in the order they first answered', () => {
    const s = session(TARGET4, { count: 1 });
    s.recordProbe(1000, true);
    s.receive(arpReplyFrame(PEER_B, TARGET4), 1000.3);
    s.receive(arpReplyFrame(PEER_A, TARGET4), 1000.4);
    const summary = s.summary();
    expect(summary.verdict).toBe('splitBrain');
    expect(summary.exitCode).toBe(3);
    expect(summary.replies.map((r) => r.mac)).toEqual(['02:13:00:00:00:03', '02:13:00:00:00:02']);
    expect(verdictLine(summary)).toMatch(/^SPLIT BRAIN: 2 MACs answer for 10\.213\.0\.200: 02:13:00:00:00:03, 02:13:00:00:00:02 /);
  });

  it('a second owner answering after the last probe, inside the late window, is still counted', () => {
    const s = session(TARGET4, { count: 2 });
    s.recordProbe(1000, true);
    s.receive(arpReplyFrame(PEER_A, TARGET4), 1000.5);
    s.recordProbe(2000, true);
    s.receive(arpReplyFrame(PEER_A, TARGET4), 2000.5);
    // A real window: a second owner a few hundred ms slower than the first must fit in it.
    expect(ARPING_LATE_REPLY_MS).toBeGreaterThanOrEqual(500);
    const late = 2000 + ARPING_LATE_REPLY_MS - 1;
    expect(s.isOver(late)).toBe(false);
    expect(s.receive(arpReplyFrame(PEER_B, TARGET4), late).reply).toEqual({
      mac: '02:13:00:00:00:03',
      rttMs: ARPING_LATE_REPLY_MS - 1,
      probe: 2,
    });
    expect(s.summary().verdict).toBe('splitBrain');
  });

  it('the exit codes are fixed: 0 one owner, 1 no reply, 3 split brain (2 is a usage error)', () => {
    expect(ARPING_EXIT_CODES).toEqual({ oneOwner: 0, noReply: 1, splitBrain: 3 });
  });
});

describe('matching replies (NDP)', () => {
  it('a solicited NA for the target to our source is a reply; its MAC is the target link-layer option', () => {
    const s = session(TARGET6);
    s.recordProbe(1000, true);
    expect(s.receive(naFrame(PEER_A, TARGET6), 1000.2).reply).toEqual({ mac: '02:13:00:00:00:02', rttMs: 0.2, probe: 1 });
    // No option: the Ethernet source is what answered.
    expect(s.receive(naFrame(PEER_B, TARGET6, { tlla: null }), 1000.3).reply?.mac).toBe('02:13:00:00:00:03');
    expect(s.summary()).toMatchObject({ verdict: 'splitBrain', exitCode: 3 });
  });

  it('ignores unsolicited NAs, NAs for other targets or to other addresses, and solicitations', () => {
    const s = session(TARGET6);
    s.recordProbe(1000, true);
    expect(s.receive(naFrame(PEER_A, TARGET6, { solicited: false, destination: ip('ff02::1') }), 1001).ignored).toBe('notAReply');
    expect(s.receive(naFrame(PEER_A, ip('fd00:213::9')), 1001).ignored).toBe('otherTarget');
    expect(s.receive(naFrame(PEER_A, TARGET6, { destination: ip('fe80::99') }), 1001).ignored).toBe('notToUs');
    expect(s.receive(naFrame(PEER_A, TARGET6, { ethDestination: PEER_B }), 1001).ignored).toBe('notToUs');
    expect(s.receive(probeFor(TARGET6).frame, 1001).ignored).toBe('notAReply');
    expect(s.receive(arpReplyFrame(PEER_A, TARGET4), 1001).ignored).toBe('otherProtocol');
    const corrupt = naFrame(PEER_A, TARGET6);
    corrupt[corrupt.length - 1] = (corrupt[corrupt.length - 1] as number) ^ 0xff;
    expect(s.receive(corrupt, 1001).ignored).toBe('undecodable');
    expect(s.summary().verdict).toBe('noReply');
  });
});

describe('output', () => {
  it('the reply line, the header, and the summary text', () => {
    expect(replyLine(TARGET4, 'eth0', { mac: '02:13:00:00:00:02', rttMs: 0.412, probe: 1 })).toBe(
      'reply from 10.213.0.200 [02:13:00:00:00:02] on eth0 0.412 ms',
    );
    expect(headerLine(TARGET4, eth0, probeFor(TARGET4))).toBe('ARPING 10.213.0.200 from 10.213.0.1 [02:13:00:00:00:01] eth0');
    const s = session(TARGET4, { count: 1 });
    s.recordProbe(1000, true);
    s.receive(arpReplyFrame(PEER_A, TARGET4), 1000.5);
    expect(summaryText(s.summary())).toBe(
      '--- 10.213.0.200 on eth0 ---\n' +
        '1 probe(s) sent, 1 reply(ies) from 1 MAC(s)\n' +
        '  02:13:00:00:00:02  1 reply(ies)  rtt min/avg/max 0.500/0.500/0.500 ms\n' +
        'one owner: 10.213.0.200 is at 02:13:00:00:00:02\n',
    );
  });

  it('the JSON shape, and the node behind a MAC when a lookup knows it', () => {
    const s = session(TARGET4, { count: 1 });
    s.recordProbe(1000, true);
    s.receive(arpReplyFrame(PEER_A, TARGET4), 1000.5);
    s.receive(arpReplyFrame(PEER_B, TARGET4), 1000.7);
    const json = summaryJSON(s.summary());
    expect(Object.keys(json)).toEqual(['ip', 'interface', 'sent', 'replies', 'verdict', 'exitCode']);
    expect(json).toEqual({
      ip: '10.213.0.200',
      interface: 'eth0',
      sent: 1,
      replies: [
        { mac: '02:13:00:00:00:02', count: 1, rttMs: { min: 0.5, avg: 0.5, max: 0.5 } },
        { mac: '02:13:00:00:00:03', count: 1, rttMs: { min: 0.7, avg: 0.7, max: 0.7 } },
      ],
      verdict: 'splitBrain',
      exitCode: 3,
    });
    const named = withNodes(s.summary(), new Map([['02:13:00:00:00:03', 'node-b']]));
    expect((summaryJSON(named).replies as object[])[1]).toMatchObject({ mac: '02:13:00:00:00:03', node: 'node-b' });
    expect((summaryJSON(named).replies as object[])[0]).not.toHaveProperty('node');
    expect(verdictLine(named)).toContain('02:13:00:00:00:02, 02:13:00:00:00:03 (node node-b)');
  });
});
