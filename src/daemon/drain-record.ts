/**
 * What drain.json under --state-dir says, and what the daemon does with it at start (pure). `mlb drain` is an
 * operator taking a node out for maintenance; a restart of the daemon must not end it. So the record fails
 * closed: anything but a readable record saying "not drained" (a torn or hand-edited file, one mlb cannot read)
 * keeps the node drained, and the log names the file and how to clear it. No file at all means the node was
 * never drained: a fresh install takes part at once.
 */
import { CodedError } from '../errors/coded-error';

export const DRAIN_FILE = 'drain.json';

interface DrainRecord {
  readonly drained: boolean;
  /** ISO time of the last drain or undrain; mlb always writes it, a hand-written record may leave it out. */
  readonly since?: string;
  /**
   * The node whose control socket asked, and the request's seq (remote-drain/): a drain request heard again in
   * gossip that is not newer than this one is a replay and changes nothing. Absent from records of older mlb.
   */
  readonly requestedBy?: string;
  readonly seq?: number;
}

/** How reading drain.json went: the shell reports it, decideDrainAtStart decides. */
export type DrainFileRead =
  { readonly kind: 'missing' } | { readonly kind: 'text'; readonly text: string } | { readonly kind: 'unreadable'; readonly error: string };

export type DrainAtStartCode = 'noRecord' | 'recorded' | 'recordDamaged' | 'recordUnreadable';

export interface DrainAtStart {
  readonly drained: boolean;
  readonly code: DrainAtStartCode;
  /** When the recorded drain or undrain happened (a readable record only). */
  readonly since?: string;
  /** Who asked, and the request's seq (a readable record written by a request-aware mlb only). */
  readonly request?: { readonly requestedBy: string; readonly seq: number };
  /** Whether the file must be rewritten before it can be trusted again (damaged or unreadable). */
  readonly recordFaulty: boolean;
  /** For the log: what was read and what the node does, naming the file. */
  readonly reason: string;
}

function isDrainRecord(v: unknown): v is DrainRecord {
  const r = v as DrainRecord;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.drained === 'boolean' &&
    (r.since === undefined || typeof r.since === 'string') &&
    (r.requestedBy === undefined || typeof r.requestedBy === 'string') &&
    (r.seq === undefined || Number.isSafeInteger(r.seq))
  );
}

/** Parses drain.json's text: the record, or why it is not one. */
function parseDrainRecord(text: string): { record: DrainRecord } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  return isDrainRecord(value) ? { record: value } : { problem: 'not a {"drained": true|false, "since": "<ISO time>"} record' };
}

export function drainRecordText(drained: boolean, at: Date, request?: { requestedBy: string; seq: number }): string {
  return `${JSON.stringify({ drained, since: at.toISOString(), ...(request ? { requestedBy: request.requestedBy, seq: request.seq } : {}) } satisfies DrainRecord)}\n`;
}

const HOW_TO_CLEAR =
  'staying drained (a node under maintenance must not take its IPs back); `mlb undrain` rewrites it, `mlb drain` keeps the node drained and rewrites it, or remove the file and restart the daemon';

export function decideDrainAtStart(path: string, read: DrainFileRead): DrainAtStart {
  switch (read.kind) {
    case 'missing':
      return { drained: false, code: 'noRecord', recordFaulty: false, reason: `no ${path}: this node was never drained` };
    case 'unreadable':
      return {
        drained: true,
        code: 'recordUnreadable',
        recordFaulty: true,
        reason: `cannot read ${path} (${read.error}): ${HOW_TO_CLEAR}`,
      };
    case 'text': {
      const parsed = parseDrainRecord(read.text);
      if ('problem' in parsed) {
        return {
          drained: true,
          code: 'recordDamaged',
          recordFaulty: true,
          reason: `${path} is damaged (${parsed.problem}): ${HOW_TO_CLEAR}`,
        };
      }
      const { drained, since, requestedBy, seq } = parsed.record;
      const when = since === undefined ? '' : ` on ${since}`;
      return {
        drained,
        code: 'recorded',
        ...(since === undefined ? {} : { since }),
        ...(requestedBy !== undefined && seq !== undefined ? { request: { requestedBy, seq } } : {}),
        recordFaulty: false,
        reason: drained ? `this node was drained${when}: it takes no IPs until \`mlb undrain\`` : `this node was undrained${when}`,
      };
    }
  }
}

/** `mlb drain` / `mlb undrain` could not be recorded on disk, so nothing changed (the control API answers 500). */
export class DrainRecordError extends CodedError<'drainNotRecorded'> {}
