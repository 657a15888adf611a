/**
 * A child process for the self-check lab test, started inside one lab namespace
 * (`ip netns exec NS node --import tsx test/daemon/self-check/self-check-runner.ts [flags]`): one SelfChecker with
 * the real probe (packet sockets) and this namespace's interfaces. JSON commands on stdin, JSON lines out.
 *
 * Flags shorten the schedule so a test sees the regular period and the forgetting in seconds:
 * --interval-ms, --recheck-ms, --forget-ms.
 * Commands: setOwned {owned: [{ip, interface}]}, membershipChanged, conflicts (-> {conflicts, stats}).
 * Events: ready, conflict {conflict}, conflictCleared {conflict, reason}, log {level, ...} (info and above).
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parseIP, type IP } from '../../../src/ip';
import { SelfChecker } from '../../../src/daemon/self-check/self-checker';
import { type Log } from '../../../src/runtime/log';

const { values: flags } = parseArgs({
  options: { 'interval-ms': { type: 'string' }, 'recheck-ms': { type: 'string' }, 'forget-ms': { type: 'string' } },
  strict: true,
});

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...event, t: Date.now() })}\n`);
}

const logAs = (level: string) => (fields: object, msg?: string) => emit({ ev: 'log', level, ...fields, msg });
const logger: Log = { info: logAs('info'), warn: logAs('warn'), debug: () => {}, error: logAs('error') };

const number = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));
const intervalMs = number(flags['interval-ms']);
const recheckMs = number(flags['recheck-ms']);
const forgetMs = number(flags['forget-ms']);

const checker = new SelfChecker({
  logger,
  timing: { ...(intervalMs === undefined ? {} : { intervalMs }), ...(recheckMs === undefined ? {} : { conflictRecheckMs: recheckMs }) },
  ...(forgetMs === undefined ? {} : { forgetMs }),
});
checker.on('conflict', (conflict) => emit({ ev: 'conflict', conflict }));
checker.on('conflictCleared', (conflict, reason) => emit({ ev: 'conflictCleared', conflict, reason }));

function ip(text: string): IP {
  const parsed = parseIP(text);
  if (!parsed) throw new Error(`not an IP: ${text}`);
  return parsed;
}

type Command = { op: 'setOwned'; owned: { ip: string; interface: string }[] } | { op: 'membershipChanged' } | { op: 'conflicts' };

function run(command: Command): Record<string, unknown> {
  switch (command.op) {
    case 'setOwned':
      checker.setOwned(command.owned.map((o) => ({ ip: ip(o.ip), interface: o.interface })));
      return {};
    case 'membershipChanged':
      checker.membershipChanged();
      return {};
    case 'conflicts':
      return { conflicts: checker.conflicts(), stats: checker.stats() };
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id, ...command } = JSON.parse(line) as Command & { id: number };
  try {
    emit({ ev: 'reply', id, ok: true, ...run(command as Command) });
  } catch (error) {
    emit({ ev: 'reply', id, ok: false, message: String((error as Error)?.message ?? error) });
  }
});
lines.on('close', () => {
  checker.close();
  process.exit(0);
});
// The checker's timers are unref'd; stdin keeps this process alive until the test ends it.
emit({ ev: 'ready', pid: process.pid });
