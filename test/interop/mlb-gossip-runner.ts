/**
 * mlb-gossip-runner: one mlb GossipNode as a process, the counterpart of go/memberlist-node for the interop tests
 * in network namespaces. Run it with `node --import tsx test/interop/mlb-gossip-runner.ts [flags]` from the
 * repository root.
 *
 * Flags: --name N, --bind IP (also the advertised address), --port P (default 7946), --join host:port[,...],
 * --key-file F (a MetalLB secretkey file, read verbatim, turned into the key as MetalLB does), --meta HEX (node
 * meta bytes), --profile lan|wan|fast (default lan).
 *
 * stdout, one JSON object a line, shaped like the Go node's: ready, join/leave/update {node}, joined {contacted,
 * errors}, members {members}, counters {counters}, left {outcome}, log {line} (reducer lines above debug).
 * A node is {name, addr, port, state ('alive' | 'suspect' | 'dead' | 'left'), incarnation, meta (hex)}.
 * stdin commands: `members` (every member, dead and left ones included until reaped), `counters`,
 * `meta HEX` (setMeta), `leave` (leave(1 s), close, exit 0).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Keyring, metallbKeyFromSecret } from '../../src/gossip/codec';
import { GossipNode } from '../../src/gossip/gossip-node';
import { SWIM_PROFILES, type Member, type SwimProfileName } from '../../src/gossip/swim';
import { hostFromBytes, parseHostPort } from '../../src/gossip/transport/address';

const { values: flags } = parseArgs({
  options: {
    name: { type: 'string' },
    bind: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '7946' },
    join: { type: 'string', default: '' },
    'key-file': { type: 'string' },
    meta: { type: 'string' },
    profile: { type: 'string', default: 'lan' },
  },
  strict: true,
});

function emit(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ event, ...fields, t: Date.now() })}\n`);
}

function fail(message: string): never {
  process.stderr.write(`mlb-gossip-runner: ${message}\n`);
  process.exit(2);
}

function nodeJSON(m: Member) {
  return {
    name: m.name,
    addr: hostFromBytes(m.addr) ?? '',
    port: m.port,
    state: m.state,
    incarnation: m.incarnation,
    meta: Buffer.from(m.meta ?? new Uint8Array()).toString('hex'),
  };
}

function hexBytes(text: string): Uint8Array {
  if (!/^([0-9a-f]{2})*$/i.test(text)) fail(`not hex: ${text}`);
  return Uint8Array.from(Buffer.from(text, 'hex'));
}

const name = flags.name ?? fail('--name is required');
const profile = flags.profile as SwimProfileName;
const config = SWIM_PROFILES[profile] ?? fail(`unknown --profile ${flags.profile}`);
let keyring: Keyring | undefined;
if (flags['key-file'] !== undefined) {
  const key = metallbKeyFromSecret(readFileSync(flags['key-file']));
  if (key) keyring = Keyring.create(key);
}

/** A log line as the test reads it: level, reason, message and the other fields. */
function emitLine(level: string, fields: object, message?: string): void {
  const { event: _event, reason, ...rest } = fields as { event?: unknown; reason: string };
  emit('log', { line: { level, reason, message, ...(Object.keys(rest).length > 0 ? { fields: rest } : {}) } });
}

const node = await GossipNode.create({
  name,
  bind: { host: flags.bind, port: Number(flags.port) },
  config,
  ...(keyring ? { keyring } : {}),
  ...(flags.meta ? { meta: hexBytes(flags.meta) } : {}),
  log: {
    debug: () => undefined,
    info: (fields, message) => emitLine('info', fields, message),
    warn: (fields, message) => emitLine('warn', fields, message),
    error: (fields, message) => emitLine('error', fields, message),
  },
});
for (const type of ['join', 'leave', 'update'] as const) node.on(type, (m) => emit(type, { node: nodeJSON(m) }));
emit('ready', { port: node.localAddress.port });

if (flags.join) {
  const result = await node.join(flags.join.split(',').map((a) => parseHostPort(a)));
  emit('joined', { contacted: result.joined, errors: result.errors });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (raw) => {
  const [command, argument] = raw.trim().split(/\s+/);
  switch (command) {
    case 'members':
      emit('members', { members: node.members().map(nodeJSON) });
      return;
    case 'counters':
      emit('counters', { counters: node.counters });
      return;
    case 'meta':
      node.setMeta(hexBytes(argument ?? ''));
      emit('metaSet');
      return;
    case 'leave':
      void node.leave(1_000).then(async (outcome) => {
        await node.close();
        emit('left', { outcome });
        process.exit(0);
      });
      return;
    default:
      emit('log', { line: { level: 'warn', reason: 'unknownCommand', message: raw } });
  }
});
