/**
 * Logging for the daemon: one JSON object per line with MetalLB's field names (level as a word, ts, event, msg),
 * so log pipelines built for MetalLB keep working; on a terminal, a short human line instead.
 * Every line that records a decision carries an `event` (MetalLB's names where it has one: serviceAnnounced,
 * serviceWithdrawn, createARPResponder ...) and, for decisions, a `reason`.
 *
 * The terminal format is a small formatter here rather than pino-pretty: pino-pretty would add a dependency tree
 * to the single-file bundle and, used as a transport, a worker thread whose lines can be lost when the process
 * exits; this one writes each line synchronously, in order, on the same stream.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Clock } from '../runtime/runtime';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** info: every membership change and decision, nothing per packet (packets are debug, as in MetalLB). */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Default: pretty when stdout is a terminal. */
  readonly pretty?: boolean;
  /** Colours in the pretty format. Default: when pretty, unless NO_COLOR is set (no-color.org). */
  readonly color?: boolean;
  readonly destination?: NodeJS.WritableStream;
  /** Fields on every line (the node name). */
  readonly base?: Record<string, unknown>;
  /** What `ts` reads: the real clock by default; a simulated node's virtual one, so its log lines line up with its events. */
  readonly clock?: Clock;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stdout;
  const pretty = options.pretty ?? (destination === process.stdout && process.stdout.isTTY === true);
  const color = options.color ?? !process.env.NO_COLOR;
  const clock = options.clock ?? REAL_RUNTIME;
  return pino(
    {
      level: options.level ?? DEFAULT_LOG_LEVEL,
      base: options.base ?? {},
      messageKey: 'msg',
      timestamp: () => `,"ts":"${new Date(clock.now()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    pretty ? prettyDestination(destination, { color }) : (destination as DestinationStream),
  );
}

/** Fields the pretty line shows in fixed places, or not at all (node: the terminal's own host, on every line). */
const PLACED_FIELDS = new Set(['level', 'ts', 'msg', 'event', 'node']);
/** Event names are padded to this width so messages line up; longer ones push the message right. */
const EVENT_COLUMN = 18;
const LEVEL_COLUMN = 5;

const ANSI = {
  reset: '\u001b[0m',
  dim: '\u001b[2m',
  bold: '\u001b[1m',
  red: '\u001b[31m',
  yellow: '\u001b[33m',
  green: '\u001b[32m',
  cyan: '\u001b[36m',
  gray: '\u001b[90m',
} as const;

const LEVEL_COLOR: Readonly<Record<string, string>> = {
  error: ANSI.red + ANSI.bold,
  warn: ANSI.yellow,
  info: ANSI.green,
  debug: ANSI.gray,
};

export interface PrettyOptions {
  readonly color: boolean;
}

/**
 * "08:21:04.120 info  memberJoined       member joined: node-b  addr=10.0.0.2:7946": one log record as a person at
 * a terminal reads it (UTC time of day, level, event, message, then the other fields as key=value; values with
 * spaces are quoted, multi-line values such as stacks follow on their own indented lines).
 */
export function formatPrettyLine(record: Readonly<Record<string, unknown>>, options: PrettyOptions): string {
  const paint = (code: string, text: string) => (options.color && text ? `${code}${text}${ANSI.reset}` : text);
  const level = String(record.level ?? '');
  const time = typeof record.ts === 'string' ? record.ts.slice(11, 23) : '';
  const event = typeof record.event === 'string' ? record.event : '';
  const extras: string[] = [];
  const blocks: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (PLACED_FIELDS.has(key)) continue;
    if (typeof value === 'string' && value.includes('\n')) {
      blocks.push(
        `${key}:\n${value
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}`,
      );
      continue;
    }
    // A string is quoted when it would not read as one word; other values are their JSON text.
    const text = typeof value !== 'string' ? JSON.stringify(value) : /[\s"]/.test(value) || value === '' ? JSON.stringify(value) : value;
    extras.push(`${paint(ANSI.dim, `${key}=`)}${text}`);
  }
  const head = [
    paint(ANSI.gray, time),
    paint(LEVEL_COLOR[level] ?? '', level.padEnd(LEVEL_COLUMN)),
    paint(ANSI.cyan, event.padEnd(EVENT_COLUMN)),
    String(record.msg ?? ''),
  ].join(' ');
  const line = extras.length > 0 ? `${head}  ${extras.join(' ')}` : head;
  return [line, ...blocks].join('\n');
}

/** pino's destination: each JSON line it writes becomes one pretty line, written at once on `out`. */
function prettyDestination(out: NodeJS.WritableStream, options: PrettyOptions): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) {
        if (!line) continue;
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(line) as Record<string, unknown>;
        } catch {
          out.write(`${line}\n`);
          continue;
        }
        out.write(`${formatPrettyLine(record, options)}\n`);
      }
    },
  };
}
