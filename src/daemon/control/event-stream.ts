/**
 * One open answer to `GET /v1/events?after=SEQ`: the events after SEQ the daemon still holds, then every new one
 * as it happens, one JSON line each (event-lines.ts), until the client goes or the daemon closes the stream. The
 * TUI follows it to redraw within milliseconds of a change; a client that reconnects asks for what it missed
 * with the last sequence number it saw.
 */
import type { DaemonEvent } from '../daemon-events';
import type { Logger } from '../logger';
import { CONTROL_API_HEADER, CONTROL_API_VERSION } from './control-snapshot';
import { encodeEventLine, EVENT_STREAM_CONTENT_TYPE, HEARTBEAT_LINE } from './event-lines';
import type { HttpResponse } from '../../runtime/http';
import { REAL_BACKGROUND_RUNTIME } from '../../runtime/real-runtime';
import type { Scheduler, Timer } from '../../runtime/runtime';

/**
 * Nothing happening for a while looks the same as a hung daemon; a heartbeat line every 15 s lets a client tell
 * them apart (EVENT_STREAM_IDLE_TIMEOUT_MS in the client waits for a few of them before giving up).
 */
export const EVENT_STREAM_HEARTBEAT_MS = 15_000;
/**
 * A client that stops reading makes its unsent lines pile up in the daemon. Past 1 MiB (thousands of events) the
 * stream is cut: the client reconnects with the last sequence number it read and loses nothing still held.
 */
export const EVENT_STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;

/** Where events come from; the speaker provides both (its EventLog). */
export interface EventSource {
  /** Events after `afterSeq` still held, oldest first. */
  eventsSince(afterSeq: number): DaemonEvent[];
  /** Live events from now on; returns the unsubscribe function. */
  subscribeEvents(listener: (event: DaemonEvent) => void): () => void;
}

export class EventStream {
  private lastSeq: number;
  private unsubscribe: (() => void) | null = null;
  private heartbeat: Timer | null = null;
  /** Settles when the connection is gone, whoever ended it. */
  readonly closed: Promise<void>;

  /**
   * Answers `res` with the replay and subscribes. `replay` was read before the headers were sent, so a failing
   * source is still a plain 500 for the caller; nothing else here throws.
   */
  constructor(
    private readonly res: HttpResponse,
    source: EventSource,
    after: number,
    replay: readonly DaemonEvent[],
    private readonly logger: Logger,
    heartbeatMs: number = EVENT_STREAM_HEARTBEAT_MS,
    /** The heartbeat's timer (default: real, not keeping the process alive by itself). */
    scheduler: Scheduler = REAL_BACKGROUND_RUNTIME,
  ) {
    this.lastSeq = after;
    res.writeHead(200, {
      'content-type': EVENT_STREAM_CONTENT_TYPE,
      'cache-control': 'no-store',
      // The connection carries this one answer: the daemon closes it when the stream ends.
      connection: 'close',
      [CONTROL_API_HEADER]: CONTROL_API_VERSION,
    });
    // The client learns at once that the stream is open, even with nothing to replay.
    res.flushHeaders();
    this.closed = new Promise((resolve) => res.once('close', resolve));
    res.once('close', () => this.stop());
    // Replay and subscribe in one turn of the event loop: no event can fall between them.
    for (const event of replay) this.send(event);
    this.unsubscribe = source.subscribeEvents((event) => this.send(event));
    this.heartbeat = scheduler.every(heartbeatMs, () => this.write(HEARTBEAT_LINE));
  }

  /** Ends the stream cleanly (the daemon is closing its control socket): the client sees the end of the answer. */
  end(): void {
    this.stop();
    if (!this.res.writableEnded) this.res.end();
  }

  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  private send(event: DaemonEvent): void {
    // The replay and a live event may overlap by one; a client sees each sequence number once, in order.
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.write(encodeEventLine(event));
  }

  private write(text: string): void {
    if (!this.open) return;
    this.res.write(text);
    if (this.res.writableLength > EVENT_STREAM_MAX_BUFFERED_BYTES) {
      this.logger.warn(
        { event: 'controlStreamCut', buffered: this.res.writableLength, lastSeq: this.lastSeq },
        'an event stream client stopped reading; cutting its stream (it can reconnect with after=SEQ)',
      );
      this.stop();
      this.res.destroy();
    }
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.heartbeat?.cancel();
    this.heartbeat = null;
  }
}
