/**
 * A child process for the VIP binder's lab tests, started inside one lab namespace
 * (`ip netns exec NS node --import tsx test/announce/addr/vip-runner.ts`): the same process role as the daemon,
 * so killing it with SIGKILL is a real crash. One JSON command per line on stdin; JSON lines out: a reply with
 * the command's id, and the binder's log lines as {ev: 'log'} events.
 *
 * Commands: open {interfaceName?, followLinks?} (followLinks: the daemon's netlink link table feeds the binder's
 * view of mlb0, as in `mlb daemon`), reconcile {desired: IP[]}, bound, prepare {interfaces}, close {keep},
 * udp {from?, to, port} (one datagram, from a bound source when given: makes this kernel resolve `to`),
 * ndpProbe {ifname, frames: hex[], listenMs} (raw frames out of a packet socket, then every Neighbor
 * Advertisement heard on the interface for listenMs).
 */
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';
import { formatIP, parseIP, type IP } from '../../../src/ip';
import { VipBinder, VipBindError } from '../../../src/announce/addr';
import { NetlinkLinks } from '../../../src/announce/l2/interfaces';
import { decodeEthernet, EtherType } from '../../../src/announce/l2/ethernet';
import { formatMAC } from '../../../src/announce/l2/mac-address';
import { decodeNdp } from '../../../src/announce/l2/ndp-packet';
import { acceptEthertypes, openPacketSocket } from '../../../src/native';
import { type Log } from '../../../src/runtime/log';

type Command =
  | { op: 'open'; interfaceName?: string; followLinks?: boolean }
  | { op: 'reconcile'; desired: string[] }
  | { op: 'bound' }
  | { op: 'prepare'; interfaces: string[] }
  | { op: 'close'; keep: boolean }
  | { op: 'udp'; from?: string; to: string; port: number }
  | { op: 'ndpProbe'; ifname: string; frames: string[]; listenMs: number };

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

const texts = (ips: readonly IP[]) => ips.map(formatIP);
const errorJSON = (e: VipBindError) => ({ code: e.code, errno: e.errno, subject: e.subject, message: e.message });

let binder: VipBinder | undefined;
function opened(): VipBinder {
  if (!binder) throw new Error('open first');
  return binder;
}

async function run(command: Command): Promise<Record<string, unknown>> {
  switch (command.op) {
    case 'open': {
      const links = command.followLinks ? await NetlinkLinks.start() : undefined;
      binder = await VipBinder.open({
        logger,
        ...(command.interfaceName ? { interfaceName: command.interfaceName } : {}),
        ...(links ? { addresses: links } : {}),
      });
      return { kind: binder.kind, staleRemoved: texts(binder.staleRemoved), bound: texts(binder.bound()) };
    }
    case 'reconcile': {
      const result = await opened().reconcile(command.desired.map(ip));
      return {
        added: texts(result.added),
        removed: texts(result.removed),
        failed: result.failed.map(errorJSON),
        decisions: result.decisions.map((d) => ({ ip: formatIP(d.ip), prefix: d.prefix, action: d.action, reason: d.reason })),
        bound: texts(opened().bound()),
      };
    }
    case 'bound':
      return { bound: texts(opened().bound()) };
    case 'prepare': {
      const result = await opened().prepareInterfaces(command.interfaces);
      return { applied: result.applied, kept: result.kept, skipped: result.skipped, failed: result.failed.map(errorJSON) };
    }
    case 'close':
      await opened().close({ keep: command.keep });
      return {};
    case 'udp': {
      const udp = createSocket(command.to.includes(':') ? 'udp6' : 'udp4');
      if (command.from) await new Promise<void>((resolve) => udp.bind({ address: command.from, port: 0 }, resolve));
      await new Promise<void>((resolve, reject) => udp.send('mlb', command.port, command.to, (e) => (e ? reject(e) : resolve())));
      udp.close();
      return {};
    }
    case 'ndpProbe': {
      const advertisements: Record<string, unknown>[] = [];
      const socket = openPacketSocket({
        ifname: command.ifname,
        protocol: 'ipv6',
        filter: acceptEthertypes(EtherType.ipv6),
        onFrame: (frame) => {
          const ethernet = decodeEthernet(frame);
          if (!ethernet.ok) return;
          const ndp = decodeNdp(ethernet.value.payload);
          if (!ndp.ok || ndp.value.message.kind !== 'advertisement') return;
          advertisements.push({
            from: formatMAC(ethernet.value.source),
            source: formatIP(ndp.value.source),
            target: formatIP(ndp.value.message.target),
            solicited: ndp.value.message.solicited,
          });
        },
        onError: () => {},
      });
      try {
        for (const hex of command.frames) if (!socket.send(Buffer.from(hex, 'hex'))) throw new Error('the packet socket queue is full');
        await new Promise((resolve) => setTimeout(resolve, command.listenMs));
      } finally {
        socket.close();
      }
      return { advertisements };
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
        code: error instanceof VipBindError ? error.code : 'unexpected',
        message: String((error as Error)?.message ?? error),
      }),
  );
});
// stdin closed: exit without unbinding, as a daemon killed mid-flight would (close {keep:false} is the graceful stop).
lines.on('close', () => process.exit(0));
emit({ ev: 'ready', pid: process.pid });
