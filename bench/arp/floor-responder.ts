/**
 * bench/arp's floor: the least a Node ARP responder on mlb's packet-socket addon can do, run in the node's
 * namespace beside mlb's announcer. It answers requests for one address (argv[2]) on eth0 by copying bytes into
 * one preallocated reply frame: no decoding into objects, no BigInt, no allocation per frame beyond the Buffer the
 * addon hands over. The gap between it and the kernel is what any Node responder on this addon pays (a process
 * wake-up, a uv_poll turn, a JS call per frame, a sendto); the gap between mlb and it is mlb's own code.
 * Prints {ev: 'ready'} and then only answers the bench's {op: 'stats'}.
 */
import { networkInterfaces } from 'node:os';
import { createInterface } from 'node:readline';
import { acceptEthertypes, openPacketSocket } from '../../src/native';

const address = process.argv[2] ?? '';
const parts = address.split('.').map(Number);
if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) throw new Error(`floor-responder: not an IPv4 address: ${address}`);
const mac = (networkInterfaces().eth0 ?? [])[0]?.mac ?? '';
const own = Buffer.from(mac.split(':').map((h) => parseInt(h, 16)));
if (own.length !== 6) throw new Error('floor-responder: eth0 has no MAC');
const ip = Buffer.from(parts);

// Ethernet (14) + ARP (28), padded to 60 as mlb pads its replies.
const reply = Buffer.alloc(60);
own.copy(reply, 6);
reply.writeUInt16BE(0x0806, 12);
reply.writeUInt16BE(1, 14);
reply.writeUInt16BE(0x0800, 16);
reply[18] = 6;
reply[19] = 4;
reply.writeUInt16BE(2, 20);
own.copy(reply, 22);
ip.copy(reply, 28);

let answered = 0;
let failed = 0;
const socket = openPacketSocket({
  ifname: 'eth0',
  protocol: 'arp',
  filter: acceptEthertypes(0x0806),
  onFrame: (frame) => {
    // A request (op 1) for our address, Ethernet/IPv4, untagged.
    if (frame.length < 42 || frame[21] !== 1 || frame[20] !== 0 || frame[18] !== 6 || frame[19] !== 4) return;
    if (frame[38] !== ip[0] || frame[39] !== ip[1] || frame[40] !== ip[2] || frame[41] !== ip[3]) return;
    frame.copy(reply, 0, 22, 28); // to the requester's sender hardware address
    frame.copy(reply, 32, 22, 32); // target hardware + protocol address = the request's sender's
    if (socket.send(reply)) answered++;
    else failed++;
  },
  onError: () => {},
});

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id } = JSON.parse(line) as { id: number };
  process.stdout.write(`${JSON.stringify({ ev: 'reply', id, ok: true, answered, failed })}\n`);
});
lines.on('close', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ev: 'ready', pid: process.pid })}\n`);
