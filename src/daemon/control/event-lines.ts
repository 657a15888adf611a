/**
 * The wire form of `GET /v1/events`: NDJSON, one DaemonEvent per line, and empty lines as heartbeats. Pure, so the
 * server's encoding and the client's decoding (chunks split anywhere, a line too long, a line that is no event)
 * are tested without a socket. The event's own fields are the contract (daemon-events.ts): add types and optional
 * fields only. A client passes on event types it does not know, so a newer daemon's events still reach it.
 */
import type { DaemonEvent } from '../daemon-events';

/** The stream's media type: newline-delimited JSON (https://github.com/ndjson/ndjson-spec). */
export const EVENT_STREAM_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';
/** What the server writes when nothing happened for a while; a client skips it but knows the daemon is alive. */
export const HEARTBEAT_LINE = '\n';
/** Far above any event (a configStale carries its error texts); a longer line is not an mlb daemon talking. */
export const EVENT_LINE_MAX_CHARS = 1024 * 1024;

export function encodeEventLine(event: DaemonEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/** A shallow check: the fields every event has (seq, at, type); the rest depends on the type. */
export function isDaemonEvent(value: unknown): value is DaemonEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return Number.isSafeInteger(v.seq) && (v.seq as number) > 0 && typeof v.at === 'string' && typeof v.type === 'string';
}

export type DecodedLine = { readonly kind: 'event'; readonly event: DaemonEvent } | { readonly kind: 'invalid'; readonly problem: string };

/**
 * Cuts a stream of text into events. Chunks may split a line (or a UTF-8 character: feed it decoded text) anywhere;
 * empty lines are heartbeats and yield nothing.
 */
export class EventLineDecoder {
  private rest = '';

  /** The lines completed by `text`, decoded; an invalid line is reported, and the ones after it still decode. */
  push(text: string): DecodedLine[] {
    const parts = (this.rest + text).split('\n');
    this.rest = parts.pop() ?? '';
    const decoded = parts.filter((line) => line.trim() !== '').map(decodeLine);
    if (this.rest.length > EVENT_LINE_MAX_CHARS) {
      this.rest = '';
      decoded.push({ kind: 'invalid', problem: `a line exceeds ${EVENT_LINE_MAX_CHARS} characters` });
    }
    return decoded;
  }

  /** Text after the last newline when the stream ended: a line cut off mid-way, or nothing. */
  get pending(): string {
    return this.rest;
  }
}

function decodeLine(line: string): DecodedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', problem: `a line is not JSON: ${JSON.stringify(line.slice(0, 80))}` };
  }
  if (!isDaemonEvent(value))
    return { kind: 'invalid', problem: `a line is not an event {seq, at, type}: ${JSON.stringify(line.slice(0, 80))}` };
  return { kind: 'event', event: value };
}
