/**
 * A child process for test/native/packet-socket.test.ts, started inside one lab namespace
 * (`ip netns exec NS node --import tsx test/native/packet-runner.ts`), since a packet socket belongs to the
 * namespace of the process that opens it. It reads one JSON command per line on stdin and prints JSON lines:
 * a reply with the command's id, and events (frames, socket errors, burst results) as they happen.
 */
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';
import {
  acceptEthertypes,
  macBytes,
  openPacketSocket,
  PacketSocketError,
  PACKET_PROTOCOLS,
  type PacketProtocol,
  type PacketSocket,
} from '../../src/native';

type Command =
  | {
      op: 'open';
      sock: string;
      ifname: string;
      protocol: PacketProtocol;
      filterEthertypes?: number[];
      receiveOutgoing?: boolean;
      burst?: { expect: number; seqOffset: number };
    }
  | { op: 'send'; sock: string; hex: string }
  | { op: 'burst'; sock: string; hex: string; count: number; seqOffset: number }
  | { op: 'join' | 'leave'; sock: string; mac: string }
  | { op: 'close'; sock: string }
  | { op: 'stats'; sock: string }
  | { op: 'fastPath'; sock: string; mac?: string; ips?: string[] }
  | { op: 'fastPathStats'; sock: string }
  | { op: 'fastPathTimes'; sock: string }
  | { op: 'fastPathChange'; sock: string; add: string[]; remove: string[] }
  | { op: 'block'; ms: number }
  | { op: 'udp'; to: string; port: number };

interface Burst {
  expect: number;
  seqOffset: number;
  count: number;
  inOrder: boolean;
  nextSeq: number;
  /** Turns of the event loop (setImmediate callbacks) that ran after the first burst frame and before the last. */
  turnsDuringBurst: number;
  immediatePending: boolean;
}

const sockets = new Map<string, PacketSocket>();
const bursts = new Map<string, Burst>();

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof PacketSocketError) return { code: error.code, errno: error.errno, message: error.message };
  return { code: 'unexpected', message: String((error as Error)?.message ?? error) };
}

function socketOf(name: string): PacketSocket {
  const socket = sockets.get(name);
  if (!socket) throw new Error(`no socket ${name}`);
  return socket;
}

function countBurstFrame(sock: string, burst: Burst, frame: Buffer): void {
  const seq = frame.readUInt32BE(burst.seqOffset);
  if (seq !== burst.nextSeq) burst.inOrder = false;
  burst.nextSeq = seq + 1;
  burst.count++;
  if (!burst.immediatePending && burst.count < burst.expect) {
    burst.immediatePending = true;
    setImmediate(() => {
      burst.immediatePending = false;
      if (burst.count < burst.expect) burst.turnsDuringBurst++;
    });
  }
  if (burst.count === burst.expect) {
    const { count, inOrder, turnsDuringBurst } = burst;
    emit({ ev: 'burstReceived', sock, count, inOrder, turnsDuringBurst });
  }
}

async function sendBurst(socket: PacketSocket, hex: string, count: number, seqOffset: number): Promise<number> {
  const frame = Buffer.from(hex, 'hex');
  let queueFull = 0;
  for (let seq = 0; seq < count;) {
    frame.writeUInt32BE(seq, seqOffset);
    if (socket.send(frame)) seq++;
    else {
      queueFull++;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return queueFull;
}

async function run(command: Command): Promise<Record<string, unknown>> {
  switch (command.op) {
    case 'open': {
      const { sock, burst } = command;
      if (burst) bursts.set(sock, { ...burst, count: 0, inOrder: true, nextSeq: 0, turnsDuringBurst: 0, immediatePending: false });
      const socket = openPacketSocket({
        ifname: command.ifname,
        protocol: command.protocol,
        filter: command.filterEthertypes ? acceptEthertypes(...command.filterEthertypes) : undefined,
        receiveOutgoing: command.receiveOutgoing ?? false,
        onFrame: (frame, info) => {
          const b = bursts.get(sock);
          if (b) countBurstFrame(sock, b, frame);
          else emit({ ev: 'frame', sock, hex: frame.toString('hex'), ...info });
        },
        onError: (error) => emit({ ev: 'socketError', sock, ...errorFields(error) }),
      });
      sockets.set(sock, socket);
      return { ifindex: socket.ifindex, protocol: PACKET_PROTOCOLS[command.protocol] };
    }
    case 'send':
      return { sent: socketOf(command.sock).send(Buffer.from(command.hex, 'hex')) };
    case 'burst':
      return { queueFull: await sendBurst(socketOf(command.sock), command.hex, command.count, command.seqOffset) };
    case 'join':
      socketOf(command.sock).addMembership(command.mac);
      return {};
    case 'leave':
      socketOf(command.sock).dropMembership(command.mac);
      return {};
    case 'close':
      socketOf(command.sock).close();
      sockets.delete(command.sock);
      return {};
    case 'stats': {
      const b = bursts.get(command.sock);
      return { stats: socketOf(command.sock).stats, burstCount: b?.count };
    }
    case 'fastPath': {
      const ipv4 = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
      socketOf(command.sock).setArpFastPath!(
        command.mac === undefined ? null : { mac: macBytes(command.mac), ips: (command.ips ?? []).map(ipv4) },
      );
      return {};
    }
    case 'fastPathChange': {
      const ipv4 = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
      socketOf(command.sock).changeArpFastPath!(command.add.map(ipv4), command.remove.map(ipv4));
      return {};
    }
    case 'block': {
      // Holds the event loop as a long synchronous task would (a big reload, a burst of netlink work): says so
      // first (stdout to a pipe is written synchronously), then spins.
      emit({ ev: 'blocking' });
      const until = Date.now() + command.ms;
      while (Date.now() < until) {
        // spinning on purpose
      }
      return {};
    }
    case 'fastPathTimes':
      return { times: socketOf(command.sock).fastPathTimes!() };
    case 'fastPathStats':
      return { stats: socketOf(command.sock).fastPathStats!(), received: socketOf(command.sock).stats.received };
    case 'udp': {
      // Any datagram to a neighbour makes this namespace's kernel resolve it with an ARP request first.
      const udp = createSocket('udp4');
      await new Promise<void>((resolve, reject) => udp.send('mlb', command.port, command.to, (e) => (e ? reject(e) : resolve())));
      udp.close();
      return {};
    }
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id, ...command } = JSON.parse(line) as Command & { id: number };
  run(command as Command).then(
    (result) => emit({ ev: 'reply', id, ok: true, ...result }),
    (error: unknown) => emit({ ev: 'reply', id, ok: false, ...errorFields(error) }),
  );
});
lines.on('close', () => {
  for (const socket of sockets.values()) socket.close();
});
emit({ ev: 'ready', pid: process.pid });
