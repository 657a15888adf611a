/**
 * One probe (src/announce/l2/arping/neighbor-probe.ts): the ARP request and Neighbor Solicitation frames, the
 * kernel filter that lets only replies through, and which received frames answer the probe. No root, no sockets.
 */
import { describe, expect, it } from 'vitest';
import { ArpOperation, decodeArp, encodeArpFrame, isArpProbe } from '../../../../src/announce/l2/arp-packet';
import { decodeEthernet, EtherType } from '../../../../src/announce/l2/ethernet';
import { BROADCAST_MAC, formatMAC } from '../../../../src/announce/l2/mac-address';
import { decodeNdp } from '../../../../src/announce/l2/ndp-packet';
import { solicitedNodeMAC } from '../../../../src/announce/l2/solicited-node';
import type { BpfInstruction } from '../../../../src/native/bpf-filter';
import { buildProbe, matchReply, replyFilter, type ArpingInterface } from '../../../../src/announce/l2/arping/neighbor-probe';
import { arpReplyFrame, eth0, ip, LINK_LOCAL, naFrame, OUR_MAC, PEER_A, PEER_B, probeFor, TARGET4, TARGET6 } from './probe-fixtures';

/** A classic BPF interpreter for the four opcodes replyFilter uses: the number of bytes kept (0 = dropped). */
function runBpf(program: readonly BpfInstruction[], frame: Uint8Array): number {
  let a = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const ins = program[pc] as BpfInstruction;
    switch (ins.code) {
      case 0x28:
        if (ins.k + 2 > frame.length) return 0;
        a = ((frame[ins.k] as number) << 8) | (frame[ins.k + 1] as number);
        break;
      case 0x30:
        if (ins.k + 1 > frame.length) return 0;
        a = frame[ins.k] as number;
        break;
      case 0x15:
        pc += a === ins.k ? ins.jt : ins.jf;
        break;
      case 0x06:
        return ins.k;
      default:
        throw new Error(`opcode 0x${ins.code.toString(16)}`);
    }
  }
  throw new Error('fell off the end of the program');
}

describe('probes', () => {
  it('IPv4: a broadcast ARP request from our MAC and our address on the target subnet, padded to 60 bytes', () => {
    const probe = probeFor(TARGET4);
    expect(probe.kind).toBe('arp');
    expect(probe.frame.length).toBe(60);
    const frame = decodeEthernet(probe.frame);
    if (!frame.ok) throw new Error(frame.reason);
    expect(frame.value.destination).toEqual(BROADCAST_MAC);
    expect(frame.value.source).toEqual(OUR_MAC);
    expect(frame.value.etherType).toBe(EtherType.arp);
    const arp = decodeArp(frame.value.payload);
    if (!arp.ok) throw new Error(arp.reason);
    expect(arp.value.operation).toBe(ArpOperation.request);
    expect(arp.value.senderMAC).toEqual(OUR_MAC);
    expect(arp.value.senderIP).toEqual(ip('10.213.0.1'));
    expect(arp.value.targetIP).toEqual(TARGET4);
    expect(arp.value.targetMAC).toEqual(new Uint8Array(6));
  });

  it('IPv4 off every subnet: the first IPv4 address; none at all: an RFC 5227 probe from 0.0.0.0', () => {
    expect(probeFor(ip('172.16.0.1')).source).toEqual(ip('192.168.1.5'));
    const bare: ArpingInterface = { name: 'eth1', mac: OUR_MAC, addresses: [{ ip: LINK_LOCAL, prefix: 64 }] };
    const probe = probeFor(TARGET4, bare);
    expect(probe.source).toEqual(ip('0.0.0.0'));
    const arp = decodeArp((decodeEthernet(probe.frame) as { value: { payload: Uint8Array } }).value.payload);
    expect(arp.ok && isArpProbe(arp.value)).toBe(true);
  });

  it('IPv6: a Neighbor Solicitation to the solicited-node group, from the link-local address, with our MAC as option', () => {
    const probe = probeFor(TARGET6);
    expect(probe.kind).toBe('ndp');
    expect(probe.source).toEqual(LINK_LOCAL);
    const frame = decodeEthernet(probe.frame);
    if (!frame.ok) throw new Error(frame.reason);
    expect(formatMAC(frame.value.destination)).toBe('33:33:ff:00:02:00');
    expect(frame.value.destination).toEqual(solicitedNodeMAC(TARGET6));
    const ndp = decodeNdp(frame.value.payload);
    if (!ndp.ok) throw new Error(ndp.reason);
    expect(ndp.value.destination).toEqual(ip('ff02::1:ff00:200'));
    expect(ndp.value.source).toEqual(LINK_LOCAL);
    expect(ndp.value.hopLimit).toBe(255);
    expect(ndp.value.message).toEqual({ kind: 'solicitation', target: TARGET6, options: [{ kind: 'sourceLinkLayer', mac: OUR_MAC }] });
  });

  it('IPv6 without a link-local address uses a global one; without any IPv6 it says why', () => {
    const global: ArpingInterface = { name: 'eth2', mac: OUR_MAC, addresses: [{ ip: ip('fd00:213::1'), prefix: 64 }] };
    expect(probeFor(TARGET6, global).source).toEqual(ip('fd00:213::1'));
    const none = buildProbe(TARGET6, { name: 'eth3', mac: OUR_MAC, addresses: [{ ip: ip('10.0.0.1'), prefix: 8 }] });
    expect(none.ok).toBe(false);
    expect(!none.ok && none.problem).toMatch(/eth3 has no IPv6 address.*disable_ipv6/);
  });

  it('the kernel filter keeps ARP replies and Neighbor Advertisements only', () => {
    const arp = replyFilter('arp');
    expect(runBpf(arp, arpReplyFrame(PEER_A, TARGET4))).toBeGreaterThan(0);
    expect(runBpf(arp, probeFor(TARGET4).frame)).toBe(0);
    expect(runBpf(arp, naFrame(PEER_A, TARGET6))).toBe(0);
    const ndp = replyFilter('ndp');
    expect(runBpf(ndp, naFrame(PEER_A, TARGET6))).toBeGreaterThan(0);
    expect(runBpf(ndp, probeFor(TARGET6).frame)).toBe(0);
    expect(runBpf(ndp, arpReplyFrame(PEER_A, TARGET4))).toBe(0);
    expect(runBpf(ndp, new Uint8Array(20))).toBe(0);
  });
});

describe('matchReply', () => {
  const question4 = { target: TARGET4, iface: eth0, probe: probeFor(TARGET4) };
  const question6 = { target: TARGET6, iface: eth0, probe: probeFor(TARGET6) };

  it('names the MAC that answers: the ARP sender, or the NA target link-layer option (else its Ethernet source)', () => {
    expect(matchReply(arpReplyFrame(PEER_A, TARGET4), question4)).toEqual({ mac: '02:13:00:00:00:02' });
    expect(matchReply(naFrame(PEER_B, TARGET6), question6)).toEqual({ mac: '02:13:00:00:00:03' });
    expect(matchReply(naFrame(PEER_A, TARGET6, { tlla: null }), question6)).toEqual({ mac: '02:13:00:00:00:02' });
  });

  it('our own MAC answering (the L2 responder of this host) is still an answer: the caller decides what is its own', () => {
    expect(matchReply(arpReplyFrame(OUR_MAC, TARGET4), question4)).toEqual({ mac: '02:13:00:00:00:01' });
  });

  it('a gratuitous ARP for the target is an announcement, not an answer', () => {
    const gratuitous = encodeArpFrame(
      { operation: ArpOperation.reply, senderMAC: PEER_B, senderIP: TARGET4, targetMAC: BROADCAST_MAC, targetIP: TARGET4 },
      BROADCAST_MAC,
      PEER_B,
    );
    expect(matchReply(gratuitous, question4)).toEqual({ mismatch: 'notToUs' });
    expect(matchReply(arpReplyFrame(PEER_A, ip('10.213.0.9')), question4)).toEqual({ mismatch: 'otherTarget' });
    expect(matchReply(naFrame(PEER_A, TARGET6, { solicited: false }), question6)).toEqual({ mismatch: 'notAReply' });
    expect(matchReply(new Uint8Array(3), question6)).toEqual({ mismatch: 'undecodable' });
  });
});

describe('the probe never claims the target', () => {
  it('an interface that holds the target itself asks from another of its addresses, else as an RFC 5227 probe', () => {
    const holder: ArpingInterface = {
      name: 'eth0',
      mac: OUR_MAC,
      addresses: [
        { ip: TARGET4, prefix: 32 },
        { ip: ip('10.213.0.1'), prefix: 24 },
      ],
    };
    expect(probeFor(TARGET4, holder).source).toEqual(ip('10.213.0.1'));
    const only: ArpingInterface = { name: 'eth0', mac: OUR_MAC, addresses: [{ ip: TARGET4, prefix: 24 }] };
    expect(probeFor(TARGET4, only).source).toEqual(ip('0.0.0.0'));
  });
});
