/**
 * bench/arp's load generator, run inside the client namespace
 * (`ip netns exec NS node --import tsx bench/arp/generator.ts`). One JSON command per line on stdin, one JSON line
 * per result on stdout (with the command's id).
 *
 *   run {target, rate, count, timeoutMs, tag}: sends `count` ARP requests "who-has target tell <client IP>" at
 *   `rate` per second, broadcast as arping sends them, out of an AF_PACKET socket (src/native) on eth0, and
 *   matches the replies. With `targets` instead of `target`, each request asks for one of those addresses picked
 *   at random (a daemon holding thousands of VIPs, bench/scale); `untilReply` stops sending at the first reply
 *   (how long until an address starts being answered); `perRequest` adds every request's target, send time and
 *   latency to the result (bench/scale classifies them against when each VIP was bound).
 *
 * Identifying a request: its ARP sender hardware address is 02:ee:<tag>:<seq, 24 bits> (locally administered,
 * unicast); the Ethernet source stays the client's own MAC, the sender IP the client's own IP. RFC 826 makes the
 * responder echo the sender hardware address as the reply's target hardware address and send the reply to it,
 * so both the kernel and mlb address their reply to 02:ee:..: the bridge floods it (the only other port is the
 * client's), the client's kernel ignores it (PACKET_OTHERHOST), and this packet socket sees it.
 *
 * Timing: process.hrtime.bigint() just before send() and first thing in onFrame, in this one process, so both
 * targets are measured through the same two kernels' paths. Pacing: a setImmediate loop that, every turn, sends
 * every request whose scheduled time (start + seq / rate) has passed; a turn is a few microseconds when idle, so
 * requests go out one at a time, evenly spaced, and in batches only when the process was held up (never more
 * than 1 ms worth, the rest is reported as lag). How late each send was against its schedule is reported, and so is the
 * achieved rate and this process's CPU time: a generator that cannot keep up says so. With `spin: false` the loop
 * turns on a 1 ms timer instead (sends a few ms late at worst, the core left to others).
 */
import { networkInterfaces } from 'node:os';
import { createInterface } from 'node:readline';
import { decodeArp, arpRequest, encodeArpFrame, ArpOperation } from '../../src/announce/l2/arp-packet';
import { decodeEthernet } from '../../src/announce/l2/ethernet';
import { BROADCAST_MAC, formatMAC, parseMAC } from '../../src/announce/l2/mac-address';
import { parseIP, formatIP, type IP } from '../../src/ip';
import { acceptEthertypes, openPacketSocket, type PacketSocket } from '../../src/native';

const IFNAME = 'eth0';
const ETH_P_ARP = 0x0806;
/** Offset of the ARP sender hardware address in an untagged frame (14-byte Ethernet header + 8). */
const SHA_OFFSET = 14 + 8;
const ID_PREFIX = [0x02, 0xee] as const;
const MAX_SEQ = 1 << 24;
/** The timer-paced turn (spin: false); a turn may send what came due in up to TIMER_CATCH_UP_MS. */
const TIMER_TURN_MS = 1;
const TIMER_CATCH_UP_MS = 5;

interface RunCommand {
  readonly op: 'run';
  /** The one address asked for, unless `targets` is given. */
  readonly target?: string;
  /** Each request asks for one of these, picked at random. */
  readonly targets?: readonly string[];
  /** Stop sending once any request was answered; `sent` says how many went out. */
  readonly untilReply?: boolean;
  /** Return every request (see PerRequest). */
  readonly perRequest?: boolean;
  /**
   * false: pace on a 1 ms timer instead of spinning (TIMER_TURN_MS): sends are up to a few ms late, but the
   * generator leaves its core to others, for long low-rate runs beside something else being measured.
   */
  readonly spin?: boolean;
  readonly rate: number;
  readonly count: number;
  readonly timeoutMs: number;
  /** 0-255, distinguishes this run's replies from a late reply to an earlier run. */
  readonly tag: number;
}

type Command = RunCommand | { op: 'hello' };

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function requireIP(text: string): IP {
  const ip = parseIP(text);
  if (!ip || ip.family !== 4) throw new Error(`not an IPv4 address: ${text}`);
  return ip;
}

/** This namespace's eth0 MAC and IPv4 address (the lab gives each host exactly one). */
function ownAddresses(): { mac: Uint8Array; ip: IP } {
  const entries = networkInterfaces()[IFNAME] ?? [];
  const v4 = entries.find((e) => e.family === 'IPv4');
  if (!v4) throw new Error(`${IFNAME} has no IPv4 address in this namespace`);
  const mac = parseMAC(v4.mac);
  if (!mac) throw new Error(`${IFNAME} has no MAC`);
  return { mac, ip: requireIP(v4.address) };
}

const nowNs = (): bigint => process.hrtime.bigint();

/**
 * Every request of a run, as base64 of little-endian typed arrays (a run of 100,000 requests is 2.4 MB of JSON,
 * where an array of objects would be ten times that): `target` the index into the run's targets (Uint32),
 * `sentUs` the send time in µs after `t0EpochMs` (Float64), `latUs` the first reply's latency in µs, NaN when
 * none came within the run (Float64). Only the `sent` first entries are meaningful.
 */
export interface PerRequest {
  readonly t0EpochMs: number;
  readonly target: string;
  readonly sentUs: string;
  readonly latUs: string;
}

const base64Of = (array: Uint32Array | Float64Array): string =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');

async function run(command: RunCommand): Promise<Record<string, unknown>> {
  const { rate, count, timeoutMs, tag } = command;
  if (!(rate > 0) || !Number.isInteger(count) || count <= 0 || count >= MAX_SEQ) throw new Error('bad rate or count');
  const targets = (command.targets ?? (command.target === undefined ? [] : [command.target])).map(requireIP);
  if (targets.length === 0) throw new Error('no target');
  const self = ownAddresses();
  // One template frame per target (encodeArpFrame pads it to 60 octets); each request patches the 4 identifier bytes.
  const templates = targets.map((target) => {
    const frame = Buffer.from(encodeArpFrame(arpRequest(self.mac, self.ip, target), BROADCAST_MAC, self.mac));
    frame[SHA_OFFSET] = ID_PREFIX[0];
    frame[SHA_OFFSET + 1] = ID_PREFIX[1];
    frame[SHA_OFFSET + 2] = tag & 0xff;
    return frame;
  });
  const pick = new Uint32Array(count);
  if (targets.length > 1) for (let i = 0; i < count; i++) pick[i] = Math.floor(Math.random() * targets.length);

  const sentAt = new Float64Array(count); // ns since t0
  const latency = new Float64Array(count).fill(NaN); // ns
  const lag = new Float64Array(count); // ns behind schedule at send
  let replies = 0;
  let duplicates = 0;
  let stray = 0;
  const repliers = new Map<string, number>();

  let t0 = 0n;
  const socket: PacketSocket = openPacketSocket({
    ifname: IFNAME,
    protocol: 'arp',
    filter: acceptEthertypes(ETH_P_ARP),
    onFrame: (frame) => {
      const at = Number(nowNs() - t0);
      const ethernet = decodeEthernet(frame);
      if (!ethernet.ok) return;
      const arp = decodeArp(ethernet.value.payload);
      if (!arp.ok) return;
      const p = arp.value;
      const tha = p.targetMAC;
      if (
        p.operation !== ArpOperation.reply ||
        p.targetIP.value !== self.ip.value ||
        tha[0] !== ID_PREFIX[0] ||
        tha[1] !== ID_PREFIX[1] ||
        tha[2] !== (tag & 0xff)
      ) {
        stray++;
        return;
      }
      const seq = (tha[3]! << 16) | (tha[4]! << 8) | tha[5]!;
      if (seq >= sent || p.senderIP.value !== targets[pick[seq]!]!.value) {
        stray++;
        return;
      }
      const mac = formatMAC(p.senderMAC);
      repliers.set(mac, (repliers.get(mac) ?? 0) + 1);
      if (!Number.isNaN(latency[seq]!)) {
        duplicates++;
        return;
      }
      latency[seq] = at - sentAt[seq]!;
      replies++;
    },
    onError: (error) => emit({ ev: 'log', level: 'error', msg: error.message }),
  });

  const interval = 1e9 / rate;
  const spin = command.spin !== false;
  const maxBatch = Math.max(1, Math.ceil((rate * (spin ? 1 : TIMER_CATCH_UP_MS)) / 1000));
  const next = (turn: () => void) => (spin ? setImmediate(turn) : setTimeout(turn, TIMER_TURN_MS));
  let sent = 0;
  let queueFull = 0;
  let turns = 0;
  let biggestBatch = 0;
  const cpuBefore = process.cpuUsage();
  t0 = nowNs();
  const t0EpochMs = performance.timeOrigin + performance.now();
  await new Promise<void>((resolve) => {
    const turn = (): void => {
      turns++;
      const elapsed = Number(nowNs() - t0);
      const due = Math.min(count, Math.floor(elapsed / interval) + 1);
      let batch = 0;
      while (sent < due && batch < maxBatch) {
        const seq = sent;
        const template = templates[pick[seq]!]!;
        template[SHA_OFFSET + 3] = (seq >> 16) & 0xff;
        template[SHA_OFFSET + 4] = (seq >> 8) & 0xff;
        template[SHA_OFFSET + 5] = seq & 0xff;
        const at = Number(nowNs() - t0);
        if (!socket.send(template)) {
          queueFull++;
          break; // the kernel's queue is full: retried next turn, the lag shows it
        }
        sentAt[seq] = at;
        lag[seq] = at - seq * interval;
        sent++;
        batch++;
      }
      if (batch > biggestBatch) biggestBatch = batch;
      if (sent < count && !(command.untilReply && replies > 0)) next(turn);
      else resolve();
    };
    next(turn);
  });
  const sendEnd = Number(nowNs() - t0);
  const cpu = process.cpuUsage(cpuBefore);
  // Every reply has until timeoutMs after its own request; the last request's deadline ends the run.
  await new Promise((resolve) => setTimeout(resolve, timeoutMs + 5));
  socket.close();

  const latUs: number[] = [];
  let late = 0;
  for (let i = 0; i < sent; i++) {
    const l = latency[i]!;
    if (Number.isNaN(l)) continue;
    if (l > timeoutMs * 1e6) late++;
    else latUs.push(Math.round(l / 100) / 10);
  }
  const lagUs = Array.from(lag.subarray(0, sent), (l) => l / 1000).sort((a, b) => a - b);
  // Achieved rate: requests after the first over the time they took (the first goes out at t0).
  const achievedRate = sent > 1 ? ((sent - 1) * 1e9) / Math.max(1, sentAt[sent - 1]! - sentAt[0]!) : rate;
  const perRequest: PerRequest | undefined = command.perRequest
    ? {
        t0EpochMs,
        target: base64Of(pick.subarray(0, sent)),
        sentUs: base64Of(sentAt.subarray(0, sent).map((ns) => ns / 1000)),
        latUs: base64Of(latency.subarray(0, sent).map((ns) => ns / 1000)),
      }
    : undefined;
  return {
    target: targets.length === 1 ? formatIP(targets[0]!) : `${targets.length} addresses`,
    rate,
    // An untilReply run ends early: what was asked is what went out.
    count: sent,
    sent,
    achievedRate,
    sendMs: sendEnd / 1e6,
    queueFull,
    turns,
    biggestBatch,
    lagP99Us: lagUs[Math.floor((lagUs.length - 1) * 0.99)],
    lagMaxUs: lagUs[lagUs.length - 1],
    cpuMs: (cpu.user + cpu.system) / 1000,
    replies: replies - late,
    late,
    duplicates,
    stray,
    repliers: Object.fromEntries(repliers),
    latUs,
    socketStats: { ...socket.stats },
    ...(perRequest ? { perRequest } : {}),
  };
}

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  const { id, ...command } = JSON.parse(line) as Command & { id: number };
  // One run at a time, in order: runs must never overlap.
  queue = queue.then(async () => {
    try {
      const result = command.op === 'run' ? await run(command) : { pid: process.pid, ...addressesText() };
      emit({ ev: 'reply', id, ok: true, ...result });
    } catch (error) {
      emit({ ev: 'reply', id, ok: false, message: String((error as Error)?.message ?? error) });
    }
  });
});
lines.on('close', () => process.exit(0));

function addressesText(): Record<string, string> {
  const { mac, ip } = ownAddresses();
  return { mac: formatMAC(mac), ip: formatIP(ip) };
}

emit({ ev: 'ready', pid: process.pid });
