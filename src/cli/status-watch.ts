/**
 * `mlb status --watch`: the daemon's events as they happen, one line each on stdout, for scripts and `grep`
 * (the live view without the screen). Text: "TIME TYPE what happened"; -o json: the event as the daemon sends
 * it, one JSON object per line (NDJSON); -o yaml: one YAML document each. Runs until interrupted (SIGINT or
 * SIGTERM: exit 0); the daemon closing the stream (it stopped) or going silent is a failure (exit 1), so a
 * script's loop can start it again.
 *
 * Only events from the moment it starts: the daemon's stream replays what it still holds first, and a script
 * acting on each line must not act on the past again. The replay is told apart by the event's time against the
 * daemon's own clock (its snapshot's generatedAt), both read from the same daemon.
 */
import { stringify as yamlText } from 'yaml';
import type { DaemonEvent } from '../daemon/daemon-events';
import { encodeEventLine } from '../daemon/control/event-lines';
import type { ControlClient } from './control-client';
import { CommandError } from './exit-codes';
import type { OutputFormat } from './output-format';
import { describeEvent } from './tui/event-text';

/** The signals that end a watch as asked (Ctrl-C, systemctl stop, timeout(1)). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** One event as --watch prints it, ending with a newline. */
export function watchLine(event: DaemonEvent, format: OutputFormat): string {
  if (format === 'json') return encodeEventLine(event);
  if (format === 'yaml') return `---\n${yamlText(event)}`;
  return `${event.at} ${event.type} ${describeEvent(event).text}\n`;
}

/** True for an event that happened before the watch began (the stream's replay of held events). */
export function beforeWatch(event: DaemonEvent, startedAt: string): boolean {
  const at = Date.parse(event.at);
  const start = Date.parse(startedAt);
  // Unparsable times are printed rather than hidden: a line too many beats a lost one.
  return Number.isFinite(at) && Number.isFinite(start) && at < start;
}

/**
 * Follows `client`'s events, writing a line per new event, until `signal` aborts (resolves) or the stream ends or
 * fails (rejects with the reason).
 */
async function followWatch(
  client: Pick<ControlClient, 'getStatus' | 'followEvents' | 'socketPath'>,
  format: OutputFormat,
  write: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  // Only the daemon's time is needed: the one status answer, not the snapshot's pages.
  const { generatedAt } = await client.getStatus();
  await client.followEvents(
    0,
    (event) => {
      if (!beforeWatch(event, generatedAt)) write(watchLine(event, format));
    },
    signal,
  );
  if (!signal.aborted) {
    throw new CommandError(
      `the daemon on ${client.socketPath} closed its event stream (it is stopping or restarting)`,
      'controlStreamClosed',
    );
  }
}

/** The command's shell: stdout, and the signals that end it with exit 0. */
export async function runStatusWatch(client: ControlClient, format: OutputFormat): Promise<void> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  for (const s of STOP_SIGNALS) process.once(s, onSignal);
  try {
    await followWatch(client, format, (text) => process.stdout.write(text), stop.signal);
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
}
