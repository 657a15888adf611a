/**
 * `mlb arping IP [-I IFACE] [-c COUNT] [-w SECONDS] [--json]`: who answers ARP (IPv4) or Neighbor Solicitation
 * (IPv6) for an address, and whether more than one MAC does (split brain). The decisions live in
 * ../arping/arping-session.ts (pure); this file chooses the interface, owns the packet socket, the timer and the
 * clock, and prints.
 *
 * The node behind each MAC: runArping takes an optional MacOwnerLookup. Nothing passes one yet; when the daemon's
 * control socket exists, the command will ask it and the text and JSON outputs already carry `node`.
 */
import type { CommandModule } from 'yargs';
import { parseIP, type IP } from '../../ip';
import { openPacketSocket, PacketSocketError, type PacketSocket, type PacketSocketOptions } from '../../native';
import { CommandError, UsageError } from '../exit-codes';
import { existsSync } from 'node:fs';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';
import {
  ARPING_DEFAULT_COUNT,
  ARPING_MAX_COUNT,
  ARPING_PROBE_INTERVAL_MS,
  ArpingSession,
  buildProbe,
  headerLine,
  replyFilter,
  replyLine,
  summaryJSON,
  summaryText,
  withNodes,
  type ArpingSummary,
} from '../arping/arping-session';
import { chooseInterface, readHostInterfaces, type HostInterface } from '../arping/arping-interface';

interface ArpingArgs {
  socket?: string;
  ip: string;
  interface?: string;
  count: number;
  deadline?: number;
  json: boolean;
}

/** Who owns each MAC (a later `--socket`: the local daemon knows every member's MAC); misses are left out. */
export interface MacOwnerLookup {
  nodesOf(macs: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

/** Everything runArping touches outside itself, so it can be driven without root in a test. */
export interface ArpingDeps {
  readonly interfaces: () => readonly HostInterface[];
  readonly openSocket: (options: PacketSocketOptions) => PacketSocket;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  readonly write: (text: string) => void;
  readonly macOwners?: MacOwnerLookup;
}

export interface ArpingRequest {
  readonly target: IP;
  readonly interface?: string;
  readonly count: number;
  readonly deadlineSeconds?: number;
  readonly json: boolean;
}

const defaultArpingDeps: ArpingDeps = {
  interfaces: readHostInterfaces,
  openSocket: openPacketSocket,
  now: () => performance.now(),
  write: (text) => process.stdout.write(text),
};

export async function runArping(request: ArpingRequest, deps: ArpingDeps): Promise<ArpingSummary> {
  const { target, json } = request;
  const choice = chooseInterface(target, deps.interfaces(), request.interface);
  if (!choice.ok) throw new UsageError(choice.problem);
  const iface = choice.iface;
  const built = buildProbe(target, iface);
  if (!built.ok) throw new CommandError(built.problem, 'noSourceAddress');
  const probe = built.probe;

  // Let the caller's synchronous work finish before the clock starts: yargs renders and caches its help text right
  // after an async handler returns (~20 ms on a small machine), which would land inside the first round trip.
  await new Promise<void>((resolve) => setImmediate(resolve));
  // Pure until the socket opens: a reply can only be counted once the first probe is out (session.receive).
  const session = new ArpingSession({
    target,
    iface,
    probe,
    count: request.count,
    startMs: deps.now(),
    ...(request.deadlineSeconds === undefined ? {} : { deadlineMs: request.deadlineSeconds * 1000 }),
  });
  let socket: PacketSocket;
  try {
    socket = deps.openSocket({
      ifname: iface.name,
      protocol: probe.kind === 'arp' ? 'arp' : 'ipv6',
      filter: replyFilter(probe.kind),
      onFrame: (frame) => {
        const result = session.receive(frame, deps.now());
        if (result.reply && !json) deps.write(`${replyLine(target, iface.name, result.reply)}\n`);
      },
      onError: (error) => {
        // A link going down mid-run is worth saying; the session goes on and may still hear replies.
        process.stderr.write(`mlb arping: ${error.message}\n`);
      },
    });
  } catch (error) {
    // permissionDenied and addonMissing carry the message that says what to do; every other code too.
    if (error instanceof PacketSocketError) throw new CommandError(error.message, error.code);
    throw error;
  }

  try {
    if (!json) deps.write(`${headerLine(target, iface, probe)}\n`);
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        if (timer) clearTimeout(timer);
        process.removeListener('SIGINT', finish);
        resolve();
      };
      // Ctrl-C ends the run early with the summary so far, as iputils arping does.
      process.once('SIGINT', finish);
      const tick = (): void => {
        const now = deps.now();
        const due = session.nextProbeAt();
        if (due !== undefined && due <= now) {
          let delivered = false;
          try {
            delivered = socket.send(probe.frame);
          } catch (error) {
            process.stderr.write(`mlb arping: probe not sent: ${(error as Error).message}\n`);
          }
          session.recordProbe(now, delivered);
        }
        if (session.isOver(now)) return finish();
        const next = Math.min(session.nextProbeAt() ?? Infinity, session.endsAt());
        timer = setTimeout(tick, Math.max(0, Math.ceil(next - now)));
      };
      tick();
    });
  } finally {
    socket.close();
  }

  let summary = session.summary();
  if (deps.macOwners && summary.replies.length > 0) {
    summary = withNodes(summary, await deps.macOwners.nodesOf(summary.replies.map((r) => r.mac)));
  }
  deps.write(json ? `${JSON.stringify(summaryJSON(summary), null, 2)}\n` : summaryText(summary));
  return summary;
}

function wholeNumber(value: unknown, flag: string, min: number, max: number, unit: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} takes a whole number of ${unit} from ${min} to ${max}, not "${String(value)}"`);
  }
  return n;
}

/**
 * The nodes behind MACs, from a daemon's snapshot (members publish their MACs in gossip meta). Asked only when a
 * socket is named or the default one exists; a daemon that cannot be reached costs the names, never the answer.
 */
function macOwnersFrom(socket: string | undefined): { macOwners?: MacOwnerLookup } {
  const path = socket ?? (existsSync(DEFAULT_CONTROL_SOCKET) ? DEFAULT_CONTROL_SOCKET : undefined);
  if (!path) return {};
  return {
    macOwners: {
      nodesOf: async () => {
        try {
          const snapshot = await connectControl(path).getSnapshot();
          return new Map(snapshot.members.flatMap((m) => (m.macs ?? []).map((mac) => [mac, m.name] as [string, string])));
        } catch (error) {
          process.stderr.write(`mlb arping: cannot name the nodes behind the MACs: ${(error as Error).message}\n`);
          return new Map();
        }
      },
    },
  };
}

export const arpingCommand: CommandModule<object, ArpingArgs> = {
  command: 'arping <ip>',
  describe: 'Ask who answers ARP (or IPv6 Neighbor Solicitation) for an IP; exit 3 if several MACs do',
  builder: (y) =>
    y
      .positional('ip', { type: 'string', demandOption: true, describe: 'The IPv4 or IPv6 address to ask for' })
      .option('interface', {
        alias: 'I',
        type: 'string',
        describe: 'The interface to ask on (default: the one whose subnet holds the IP)',
      })
      .option('count', {
        alias: 'c',
        type: 'number',
        default: ARPING_DEFAULT_COUNT,
        describe: `Probes to send, ${ARPING_PROBE_INTERVAL_MS / 1000} s apart, each broadcast so every owner hears it`,
      })
      .option('deadline', {
        alias: 'w',
        type: 'number',
        describe: 'Stop after this many whole seconds in all, whatever the count (as iputils arping -w)',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print {ip, interface, sent, replies:[{mac, count, rttMs:{min,avg,max}}], verdict, exitCode}',
      })
      .option('socket', {
        type: 'string',
        describe: `A running daemon's control socket: name the mlb node behind each MAC (default ${DEFAULT_CONTROL_SOCKET} when it exists)`,
      })
      .example('mlb arping 192.168.10.200', 'three probes on the interface whose subnet holds the IP')
      .example('mlb arping -I ens18 -c 10 192.168.10.200', 'ten probes on ens18')
      .example('mlb arping fd00:10::200 --json', 'IPv6 (Neighbor Solicitation), for a script')
      .epilogue(
        'Exit codes: 0 exactly one MAC answered (one owner); 1 no reply, or the socket could not be opened; ' +
          '2 usage error; 3 several MACs answered: SPLIT BRAIN (two nodes each think they own the IP, e.g. gossip ' +
          'between them is cut, or the address is also configured on another machine).\n' +
          'Replies are still counted for 1 s after the last probe, so a slower second owner is not missed. ' +
          'Needs CAP_NET_RAW (root, or setcap cap_net_raw+ep) and the native addon.',
      ),
  handler: async (args) => {
    const target = parseIP(args.ip);
    if (!target) throw new UsageError(`"${args.ip}" is not an IP address`);
    const count = wholeNumber(args.count, '-c/--count', 1, ARPING_MAX_COUNT, 'probes');
    const deadline = args.deadline === undefined ? undefined : wholeNumber(args.deadline, '-w/--deadline', 1, ARPING_MAX_COUNT, 'seconds');
    const summary = await runArping(
      {
        target,
        count,
        json: args.json,
        ...(args.interface === undefined ? {} : { interface: args.interface }),
        ...(deadline === undefined ? {} : { deadlineSeconds: deadline }),
      },
      { ...defaultArpingDeps, ...macOwnersFrom(args.socket) },
    );
    process.exitCode = summary.exitCode;
  },
};
