/**
 * A child process for the lab tests (md5.lab.test.ts, frr.lab.test.ts), started inside one lab namespace (a socket belongs to the namespace of the
 * process that opens it). It plays either side: the router (the hand-written peer: a keyed listener that answers
 * every connection with the handshake, or a keyed dial) or mlb's node (a BgpSession, passive behind a BgpListener
 * or dialing). JSON commands on stdin, JSON events on stdout (test/support/runner-peer.ts).
 */
import { createInterface } from 'node:readline';
import type { BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { parseCIDR, parseIP } from '../../../../src/ip';
import { BgpListener, BgpSession, type BgpSessionOptions } from '../../../../src/announce/bgp/session';
import { dialSession, PeerServer, routerOpen } from './test-bgp-peer';
import { type Log } from '../../../../src/runtime/log';

type Command =
  | { id: number; op: 'routerListen'; host: string; port: number; md5Peer: string; password: string }
  | { id: number; op: 'routerDial'; host: string; port: number; localAddress: string; password?: string; timeoutMs: number }
  | {
      id: number;
      op: 'session';
      name: string;
      options: Omit<BgpSessionOptions, 'logger' | 'listener'>;
      listen?: { address: string; port: number };
    }
  | { id: number; op: 'status'; name: string }
  | { id: number; op: 'announce'; name: string; prefix: string; nextHop: string; asn: number }
  | { id: number; op: 'stop'; name: string };

const sessions = new Map<string, BgpSession>();

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const silent: Log = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Log;

async function run(command: Command): Promise<Record<string, unknown>> {
  switch (command.op) {
    case 'routerListen': {
      const server = new PeerServer();
      const port = await server.listen(command.host, command.port, { peer: command.md5Peer, password: command.password });
      void (async () => {
        for (;;) {
          const connection = await server.nextConnection(3_600_000);
          emit({ ev: 'accepted', remote: connection.socket.remoteAddress });
          connection.handshake(routerOpen()).then(
            () => emit({ ev: 'handshake', remote: connection.socket.remoteAddress }),
            () => {},
          );
        }
      })();
      return { port };
    }
    case 'routerDial': {
      const dial = dialSession(command.host, command.port, {
        localAddress: command.localAddress,
        ...(command.password ? { password: command.password } : {}),
      });
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), command.timeoutMs));
      const result = await Promise.race([dial, timeout]);
      if (result === 'timeout') {
        dial.then(
          (c) => c.destroy(),
          () => {},
        );
        return { connected: false };
      }
      await result.handshake(routerOpen());
      return { connected: true, handshake: true };
    }
    case 'session': {
      let listener: BgpListener | undefined;
      if (command.listen) {
        listener = new BgpListener({ ...command.listen, logger: silent });
        await listener.listen();
      }
      const session = new BgpSession({ ...command.options, logger: silent, ...(listener ? { listener } : {}) });
      session.on('established', (info) => emit({ ev: 'established', name: command.name, info }));
      session.on('down', (down) => emit({ ev: 'down', name: command.name, reason: down.reason }));
      sessions.set(command.name, session);
      session.start();
      return {};
    }
    case 'status':
      return { status: sessions.get(command.name)?.status() };
    case 'announce': {
      const update: BgpUpdate = {
        type: 'update',
        withdrawn: [],
        nlri: [parseCIDR(command.prefix)!],
        attributes: { origin: 'igp', asPath: [{ type: 'sequence', asns: [command.asn] }], nextHop: parseIP(command.nextHop)! },
      };
      return { sent: sessions.get(command.name)?.send([update]) ?? false };
    }
    case 'stop':
      await sessions.get(command.name)?.stop('test over');
      return {};
  }
}

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const command = JSON.parse(line) as Command;
    run(command).then(
      (reply) => emit({ ev: 'reply', id: command.id, ok: true, ...reply }),
      (error: Error & { code?: string }) => emit({ ev: 'reply', id: command.id, ok: false, message: error.message, code: error.code }),
    );
  })
  .on('close', () => process.exit(0));

emit({ ev: 'ready' });
