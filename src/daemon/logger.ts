/**
 * Logging for the daemon: one JSON object per line with MetalLB's field names (level as a word, ts, event, msg),
 * so log pipelines built for MetalLB keep working; on a terminal, a short human line instead.
 * Every line that records a decision carries an `event` (MetalLB's names where it has one: serviceAnnounced,
 * serviceWithdrawn, createARPResponder ...) and, for decisions, a `reason`.
 */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** info: every membership change and decision, nothing per packet (packets are debug, as in MetalLB). */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Default: pretty when stdout is a terminal. */
  readonly pretty?: boolean;
  readonly destination?: NodeJS.WritableStream;
  /** Fields on every line (the node name). */
  readonly base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stdout;
  const pretty = options.pretty ?? (destination === process.stdout && process.stdout.isTTY === true);
  return pino(
    {
      level: options.level ?? DEFAULT_LOG_LEVEL,
      base: options.base ?? {},
      messageKey: 'msg',
      timestamp: () => `,"ts":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    pretty ? prettyStream(destination) : (destination as pino.DestinationStream),
  );
}

const FIXED_FIELDS = new Set(['level', 'ts', 'msg', 'event']);

/** "08:21:04.120 info  memberJoined  node-b joined  addr=10.0.0.2:7946": what a person at a terminal reads. */
function prettyStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          const time = typeof record.ts === 'string' ? record.ts.slice(11, 23) : '';
          const extras = Object.entries(record)
            .filter(([k]) => !FIXED_FIELDS.has(k))
            .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
            .join(' ');
          out.write(`${time} ${String(record.level).padEnd(5)} ${String(record.event ?? '').padEnd(16)} ${record.msg ?? ''}${extras ? `  ${extras}` : ''}\n`);
        } catch {
          out.write(`${line}\n`);
        }
      }
      done();
    },
  });
}
