/**
 * bench/failover's client, run inside the lab's client namespace
 * (`ip netns exec NS node --import tsx bench/failover/client-probe.ts '{"targets":[...]}'`): it watches each VIP the
 * way a client on the segment sees it, and remembers who answered when, so the bench can ask after a failure
 * "when did another MAC / another node first answer?".
 *
 * - ARP: every PROBE_INTERVAL_MS, one "who-has VIP" per target out of an AF_PACKET socket (src/native) on eth0.
 *   The request's sender is a tag (SENDER_MAC, and the unused lab address given as senderIP), never the client
 *   itself: the answerers address their reply to the tag's MAC (RFC 826: to the requester's hardware address), so
 *   the bridge floods it, this socket sees it, and the client's kernel drops it (PACKET_OTHERHOST). Were the probe
 *   to ask as the client, every reply would refresh the client's own neighbour entry for the VIP, and the TCP
 *   measurement below would see the probe's doing instead of the new owner's gratuitous ARP.
 * - TCP: every PROBE_INTERVAL_MS, per target, a fresh connection to VIP:port (the client's own kernel: its
 *   neighbour table decides where the SYN goes), `GET /`, and the node name the lab's HTTP server answers. The
 *   event's time is when the connection was established; attempts that do not connect within CONNECT_TIMEOUT_MS
 *   are dropped and counted.
 *
 * Commands, one JSON line each on stdin: {id, op: 'seen', from} answers the first event of every (kind, ip, who)
 * at or after `from` (epoch ms, this machine's clock, the bench's too), in time order. {ev: 'ready'} once probing.
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createInterface } from 'node:readline';
import { arpRequest, ArpOperation, decodeArp, encodeArpFrame } from '../../src/announce/l2/arp-packet';
import { decodeEthernet } from '../../src/announce/l2/ethernet';
import { BROADCAST_MAC, formatMAC, macEquals, parseMAC } from '../../src/announce/l2/mac-address';
import { parseIP, type IP } from '../../src/ip';
import { acceptEthertypes, openPacketSocket } from '../../src/native';

const IFNAME = 'eth0';
const ETH_P_ARP = 0x0806;
/** 100 probes a second per VIP per kind: the measurement's resolution is this interval plus one round trip. */
export const PROBE_INTERVAL_MS = 10;
/** Below the kernel's first SYN retransmission (1 s): an attempt sent to a dead MAC is abandoned, not retried. */
export const CONNECT_TIMEOUT_MS = 300;
/** How long events are kept: longer than the slowest failover measured (memberlist LAN timers, ~7 s) twice over. */
export const HISTORY_MS = 30_000;
const FORGET_EVERY_MS = 1_000;
/** Locally administered, unicast: no NIC owns it, so replies to it reach every port of the bridge and no kernel. */
export const SENDER_MAC = '02:ee:fa:11:00:01';

export interface ProbeOptions {
  readonly targets: readonly string[];
  /** The ARP sender address: a lab address nobody holds (the nodes' kernels learn the tag's MAC for it, harmlessly). */
  readonly senderIP: string;
  readonly port: number;
}

export interface SeenEvent {
  readonly kind: 'arp' | 'tcp';
  readonly ip: string;
  /** The answering MAC (arp) or the node name the HTTP server answered (tcp). */
  readonly who: string;
  readonly t: number;
}

const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};

function requireIPv4(text: string): IP {
  const ip = parseIP(text);
  if (!ip || ip.family !== 4) throw new Error(`not an IPv4 address: ${text}`);
  return ip;
}

function ownMAC(): Uint8Array {
  const mac = parseMAC(networkInterfaces()[IFNAME]?.[0]?.mac ?? '');
  if (!mac) throw new Error(`${IFNAME} has no MAC in this namespace`);
  return mac;
}

/** Events in arrival order; old ones are dropped from the front. */
class History {
  private events: SeenEvent[] = [];
  counts = { arpSent: 0, arpQueueFull: 0, tcpAttempts: 0, tcpFailed: 0 };

  add(event: SeenEvent): void {
    this.events.push(event);
  }

  /** Called once a second: one pass over the events instead of one per event. */
  forgetOld(now: number): void {
    this.events = this.events.filter((e) => e.t >= now - HISTORY_MS);
  }

  /** The first event of each (kind, ip, who) at or after `from`, earliest first. */
  firstsSince(from: number): SeenEvent[] {
    const firsts = new Map<string, SeenEvent>();
    for (const e of this.events) {
      if (e.t < from) continue;
      const key = `${e.kind} ${e.ip} ${e.who}`;
      const known = firsts.get(key);
      if (!known || e.t < known.t) firsts.set(key, e);
    }
    return [...firsts.values()].sort((a, b) => a.t - b.t);
  }
}

function probeArp(options: ProbeOptions, history: History): () => void {
  const self = ownMAC();
  const tag = parseMAC(SENDER_MAC)!;
  const sender = requireIPv4(options.senderIP);
  const targets = options.targets.map(requireIPv4);
  const frames = targets.map((target) => encodeArpFrame(arpRequest(tag, sender, target), BROADCAST_MAC, self));
  const socket = openPacketSocket({
    ifname: IFNAME,
    protocol: 'arp',
    filter: acceptEthertypes(ETH_P_ARP),
    onFrame: (frame) => {
      const t = Date.now();
      const ethernet = decodeEthernet(frame);
      if (!ethernet.ok) return;
      const arp = decodeArp(ethernet.value.payload);
      if (!arp.ok) return;
      const p = arp.value;
      if (p.operation !== ArpOperation.reply || !macEquals(p.targetMAC, tag) || p.targetIP.value !== sender.value) return;
      const i = targets.findIndex((target) => target.value === p.senderIP.value);
      if (i >= 0) history.add({ kind: 'arp', ip: options.targets[i]!, who: formatMAC(p.senderMAC), t });
    },
    onError: (error) => emit({ ev: 'log', level: 'error', msg: error.message }),
  });
  return () => {
    for (const frame of frames) {
      if (socket.send(frame)) history.counts.arpSent++;
      else history.counts.arpQueueFull++;
    }
  };
}

/** One connection: established -> GET / -> the node name in the body. */
function probeTcp(ip: string, port: number, history: History): void {
  history.counts.tcpAttempts++;
  const socket = connect({ host: ip, port });
  let connectedAt = 0;
  let answer = '';
  const timer = setTimeout(() => socket.destroy(new Error('timeout')), CONNECT_TIMEOUT_MS);
  socket.once('connect', () => {
    connectedAt = Date.now();
    clearTimeout(timer);
    socket.end(`GET / HTTP/1.0\r\nHost: ${ip}\r\n\r\n`);
  });
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString('latin1');
  });
  socket.once('close', () => {
    clearTimeout(timer);
    const body = answer.split('\r\n\r\n')[1];
    if (connectedAt > 0 && body) history.add({ kind: 'tcp', ip, who: body.trim(), t: connectedAt });
    else history.counts.tcpFailed++;
  });
  socket.on('error', () => {});
}

function main(): void {
  const options = JSON.parse(process.argv[2] ?? '{}') as ProbeOptions;
  const history = new History();
  const sendArp = probeArp(options, history);
  setInterval(() => {
    sendArp();
    for (const ip of options.targets) probeTcp(ip, options.port, history);
  }, PROBE_INTERVAL_MS);
  setInterval(() => history.forgetOld(Date.now()), FORGET_EVERY_MS);
  createInterface({ input: process.stdin })
    .on('line', (line) => {
      const command = JSON.parse(line) as { id: number; op: string; from?: number };
      if (command.op === 'seen')
        emit({ ev: 'reply', id: command.id, ok: true, seen: history.firstsSince(command.from ?? 0), counts: history.counts });
      else emit({ ev: 'reply', id: command.id, ok: false, message: `unknown op ${command.op}` });
    })
    .on('close', () => process.exit(0));
  emit({ ev: 'ready' });
}

main();
