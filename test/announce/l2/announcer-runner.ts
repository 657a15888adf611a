/**
 * A child process for the L2 announcer's lab tests, started inside one lab namespace
 * (`ip netns exec NS node --import tsx test/announce/l2/announcer-runner.ts`): it runs an L2Announcer fed by
 * the netlink link table of that namespace. One JSON command per line on stdin; JSON lines out: a reply with the
 * command's id, and the announcer's log lines as {ev: 'log'} events.
 *
 * Commands: reconcile {desired: [{ip, interfaces}]}, stats, select {ip, interfaces?}, links,
 * sendFrames {ifname, frames: hex[]} (raw frames out of a packet socket: the client side of the malformed-frame
 * test), udp {to, port} (makes this namespace's kernel resolve `to`).
 */
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';
import { formatIP, parseIP, type IP } from '../../../src/ip';
import { L2Announcer } from '../../../src/announce/l2/l2-announcer';
import { NetlinkLinks, selectInterfaces } from '../../../src/announce/l2/interfaces';
import { formatMAC } from '../../../src/announce/l2/mac-address';
import { openPacketSocket, PacketSocketError } from '../../../src/native';
import { type Log } from '../../../src/runtime/log';

type Command =
  | { op: 'reconcile'; desired: { ip: string; interfaces: string[] }[] }
  | { op: 'stats' }
  | { op: 'select'; ip: string; interfaces?: string[] }
  | { op: 'links' }
  | { op: 'sendFrames'; ifname: string; frames: string[] }
  | { op: 'udp'; to: string; port: number };

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const logAs = (level: string) => (fields: object, msg?: string) => emit({ ev: 'log', level, ...fields, msg });
const logger: Log = { info: logAs('info'), warn: logAs('warn'), error: logAs('error'), debug: logAs('debug') };

function ip(text: string): IP {
  const parsed = parseIP(text);
  if (!parsed) throw new Error(`not an IP: ${text}`);
  return parsed;
}

let links: NetlinkLinks | undefined;
let announcer: L2Announcer | undefined;

async function ready(): Promise<{ links: NetlinkLinks; announcer: L2Announcer }> {
  if (!links)
    links = await NetlinkLinks.start({ onError: (e) => emit({ ev: 'log', level: 'error', event: 'netlinkError', msg: e.message }) });
  if (!announcer) announcer = new L2Announcer({ links, logger });
  return { links, announcer };
}

async function run(command: Command): Promise<Record<string, unknown>> {
  switch (command.op) {
    case 'reconcile': {
      const { announcer } = await ready();
      const effects = announcer.reconcile(command.desired.map((d) => ({ ip: ip(d.ip), interfaces: d.interfaces })));
      return {
        effects: effects.map((e) => ({
          ...e,
          ...('ip' in e ? { ip: formatIP(e.ip) } : {}),
          ...('group' in e ? { group: formatIP(e.group), mac: formatMAC(e.mac) } : {}),
        })),
      };
    }
    case 'stats': {
      const { announcer } = await ready();
      return { stats: announcer.stats(), metrics: announcer.metrics() };
    }
    case 'select': {
      const { links } = await ready();
      const selection = selectInterfaces(ip(command.ip), links.links(), { interfaces: command.interfaces });
      return { selected: selection.selected, choices: selection.choices, warning: selection.warning };
    }
    case 'links': {
      const { links } = await ready();
      await links.scan();
      return {
        stats: links.stats,
        links: links.links().map((l) => ({
          ...l,
          mac: l.mac ? formatMAC(l.mac) : undefined,
          addresses: l.addresses.map((a) => `${formatIP(a.ip)}/${a.prefix}`),
        })),
      };
    }
    case 'sendFrames': {
      const socket = openPacketSocket({
        ifname: command.ifname,
        protocol: 'arp',
        filter: [{ code: 0x06, jt: 0, jf: 0, k: 0 }],
        onFrame: () => {},
        onError: () => {},
      });
      let sent = 0;
      let queueFull = 0;
      try {
        for (const hex of command.frames) {
          const frame = Buffer.from(hex, 'hex');
          while (!socket.send(frame)) {
            queueFull++;
            await new Promise((resolve) => setImmediate(resolve));
          }
          sent++;
        }
      } finally {
        socket.close();
      }
      return { sent, queueFull };
    }
    case 'udp': {
      const udp = createSocket(command.to.includes(':') ? 'udp6' : 'udp4');
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
    (error: unknown) =>
      emit({
        ev: 'reply',
        id,
        ok: false,
        code: error instanceof PacketSocketError ? error.code : 'unexpected',
        message: String((error as Error)?.message ?? error),
      }),
  );
});
lines.on('close', () => {
  announcer?.close();
  links?.close();
  process.exit(0);
});
emit({ ev: 'ready', pid: process.pid });
