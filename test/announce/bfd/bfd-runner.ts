/**
 * A child process for the BFD lab tests, started inside one lab namespace
 * (`ip netns exec NS node --import tsx test/announce/bfd/bfd-runner.ts`): it holds BfdEndpoints and their
 * sessions. One JSON command per line on stdin; JSON lines out: {ev: 'ready'}, a reply per command ({ev: 'reply',
 * id, ok}), and every session event ({ev: 'up' | 'down' | 'stateChange', peer, at}) with `at` in wall-clock ms
 * (Date.now: one clock for every process of the lab, so the test can time a peer's death to our 'down').
 *
 * Commands: open {localAddress}, session {localAddress, peer, profile?}, start {peer}, stop {peer}, status {peer}.
 */
import { createInterface } from 'node:readline';
import { BfdEndpoint, type BfdSession } from '../../../src/announce/bfd';

type Command =
  | { id: number; op: 'open'; localAddress: string }
  | { id: number; op: 'session'; localAddress: string; peer: string; profile?: Record<string, unknown> }
  | { id: number; op: 'start' | 'stop' | 'status'; peer: string };

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const endpoints = new Map<string, BfdEndpoint>();
const sessions = new Map<string, BfdSession>();

function sessionOf(peer: string): BfdSession {
  const session = sessions.get(peer);
  if (!session) throw new Error(`no session with ${peer}`);
  return session;
}

async function run(command: Command): Promise<Record<string, unknown>> {
  switch (command.op) {
    case 'open': {
      const endpoint = await BfdEndpoint.open({
        localAddress: command.localAddress,
        logger: {
          info: (f, msg) => emit({ ev: 'log', level: 'info', ...f, msg }),
          warn: (f, msg) => emit({ ev: 'log', level: 'warn', ...f, msg }),
          error: (f, msg) => emit({ ev: 'log', level: 'error', ...f, msg }),
          debug: () => {},
        },
      });
      endpoints.set(command.localAddress, endpoint);
      return { ttlCheck: endpoint.ttlCheck, port: endpoint.port };
    }
    case 'session': {
      const endpoint = endpoints.get(command.localAddress);
      if (!endpoint) throw new Error(`no endpoint on ${command.localAddress}`);
      const session = endpoint.session({ peer: command.peer, profile: command.profile });
      const peer = command.peer;
      session.on('up', () => emit({ ev: 'up', peer, at: Date.now() }));
      session.on('down', (down) => emit({ ev: 'down', peer, at: Date.now(), ...down }));
      session.on('stateChange', (change) => emit({ ev: 'stateChange', peer, at: Date.now(), ...change }));
      sessions.set(peer, session);
      return { localDiscriminator: session.localDiscriminator };
    }
    case 'start':
      await sessionOf(command.peer).start();
      return {};
    case 'stop':
      await sessionOf(command.peer).stop();
      return {};
    case 'status': {
      const s = sessionOf(command.peer);
      return {
        state: s.state,
        counters: s.counters,
        detectionTimeMs: s.detectionTimeMs,
        remoteDiscriminator: s.remoteDiscriminator,
        polling: s.snapshot.polling,
      };
    }
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let command: Command;
  try {
    command = JSON.parse(line) as Command;
  } catch {
    emit({ ev: 'reply', ok: false, message: `not JSON: ${line}` });
    return;
  }
  run(command).then(
    (result) => emit({ ev: 'reply', id: command.id, ok: true, ...result }),
    (error: unknown) => emit({ ev: 'reply', id: command.id, ok: false, message: (error as Error).message }),
  );
});
process.stdin.on('end', () => process.exit(0));
emit({ ev: 'ready' });
