/**
 * A drain request travels in gossip (one record of ../records/, kind drainRequest; this is its v1 layout): `mlb drain NODE` on
 * any host asks NODE to drain (or undrain), every node relays the newest request per target, and the target
 * answers by republishing the same request with its outcome (applied, or failed with why). Pure: the codec only;
 * the ordering and the table are drain-request-table.ts.
 *
 * Records version 2 sends records/drain-request-body.ts instead of the v1 layout:
 *
 * Layout, version 1 (big-endian; strings UTF-8, each at most 255 bytes):
 *   "mlbd" (4) | version u8 | targetLen u8 | target | byLen u8 | requestedBy | seq u64 | at u64
 *          | action u8 (0 drain, 1 undrain) | outcome u8 (0 pending, 1 applied, 2 failed) | detailLen u8 | detail
 * seq orders requests for one target (a hybrid logical clock, drain-request-table.ts); at is the requester's
 * wall clock in epoch ms, shown to operators only. seq is at most 2^53 - 1 (JavaScript's safe integers), at at
 * most MAX_DRAIN_TIME_MS.
 * A decoder ignores bytes after the detail, so a later version can append fields without a new version.
 */
const DRAIN_REQUEST_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x64); // "mlbd"
const DRAIN_REQUEST_VERSION = 1;
/** A u8 length: Kubernetes node names are DNS subdomains of at most 253 bytes. */
const MAX_DRAIN_NODE_BYTES = 255;
/**
 * Why a drain failed (the target's drain.json could not be written), cut to fit a u8 length: enough for the path
 * and the errno, and it keeps the largest record under 800 bytes, one gossip packet.
 */
export const MAX_DRAIN_DETAIL_BYTES = 200;

/**
 * The latest time a JavaScript Date can hold (ECMA-262, "Time Values and Time Range"): status turns `at` into an
 * ISO string, which throws beyond it, so a record claiming a later time is damaged and dropped.
 */
export const MAX_DRAIN_TIME_MS = 8.64e15;

export type DrainAction = 'drain' | 'undrain';
export type DrainOutcome = 'pending' | 'applied' | 'failed';

/** Append-only wire codes. */
export const DRAIN_ACTION_CODES: readonly DrainAction[] = ['drain', 'undrain'];
export const DRAIN_OUTCOME_CODES: readonly DrainOutcome[] = ['pending', 'applied', 'failed'];

export interface DrainRequest {
  /** The node asked to drain or undrain. */
  readonly target: string;
  readonly action: DrainAction;
  /** The node whose control socket was asked (the target itself for a local `mlb drain`). */
  readonly requestedBy: string;
  /** Orders requests for one target: the higher wins (ties: the requester's name, drain-request-table.ts). */
  readonly seq: number;
  /** When it was asked, the requester's epoch ms. */
  readonly at: number;
  /** pending until the target republishes it applied, or failed with `detail`. */
  readonly outcome: DrainOutcome;
  /** failed: why, in the target's words. */
  readonly detail?: string;
}

const HEADER_BYTES = DRAIN_REQUEST_MAGIC.length + 1;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The request's bytes, or undefined for one no peer would accept (an empty or over-long node name, a seq or time
 * that is not a safe non-negative integer): the caller built it, so it logs and drops it rather than send it.
 * A detail over MAX_DRAIN_DETAIL_BYTES is cut on a character boundary.
 */
export function encodeDrainRequest(request: DrainRequest): Uint8Array | undefined {
  const target = utf8.encode(request.target);
  const by = utf8.encode(request.requestedBy);
  if (!validName(target) || !validName(by) || !safe(request.seq) || !safe(request.at) || request.at > MAX_DRAIN_TIME_MS) return undefined;
  const detail = utf8.encode(fitDetail(request.detail ?? ''));
  const out = new Uint8Array(HEADER_BYTES + 1 + target.length + 1 + by.length + 16 + 3 + detail.length);
  const view = new DataView(out.buffer);
  out.set(DRAIN_REQUEST_MAGIC, 0);
  let at = DRAIN_REQUEST_MAGIC.length;
  out[at++] = DRAIN_REQUEST_VERSION;
  for (const name of [target, by]) {
    out[at++] = name.length;
    out.set(name, at);
    at += name.length;
  }
  view.setBigUint64(at, BigInt(request.seq));
  view.setBigUint64(at + 8, BigInt(request.at));
  at += 16;
  out[at++] = DRAIN_ACTION_CODES.indexOf(request.action);
  out[at++] = DRAIN_OUTCOME_CODES.indexOf(request.outcome);
  out[at++] = detail.length;
  out.set(detail, at);
  return out;
}

/** The request, or undefined for anything else (another payload, another version, damaged). Never throws. */
export function decodeDrainRequest(bytes: Uint8Array): DrainRequest | undefined {
  if (bytes.length < HEADER_BYTES || !DRAIN_REQUEST_MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  if (bytes[DRAIN_REQUEST_MAGIC.length] !== DRAIN_REQUEST_VERSION) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = HEADER_BYTES;
  const text = (): string | undefined => {
    if (at + 1 > bytes.length) return undefined;
    const length = bytes[at] as number;
    if (at + 1 + length > bytes.length) return undefined;
    try {
      const value = utf8Decoder.decode(bytes.subarray(at + 1, at + 1 + length));
      at += 1 + length;
      return value;
    } catch {
      return undefined;
    }
  };
  const target = text();
  const requestedBy = text();
  if (!target || !requestedBy || at + 19 > bytes.length) return undefined;
  const seq = view.getBigUint64(at);
  const when = view.getBigUint64(at + 8);
  if (seq > BigInt(Number.MAX_SAFE_INTEGER) || when > BigInt(MAX_DRAIN_TIME_MS)) return undefined;
  at += 16;
  const action = DRAIN_ACTION_CODES[bytes[at++] as number];
  const outcome = DRAIN_OUTCOME_CODES[bytes[at++] as number];
  const detail = text();
  if (action === undefined || outcome === undefined || detail === undefined) return undefined;
  return { target, action, requestedBy, seq: Number(seq), at: Number(when), outcome, ...(detail === '' ? {} : { detail }) };
}

function validName(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes.length <= MAX_DRAIN_NODE_BYTES;
}

function safe(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/** The detail cut, on a character boundary, to at most MAX_DRAIN_DETAIL_BYTES of UTF-8. */
function fitDetail(text: string): string {
  if (utf8.encode(text).length <= MAX_DRAIN_DETAIL_BYTES) return text;
  let cut = '';
  // A character is at least one byte: the first MAX_DRAIN_DETAIL_BYTES characters always hold enough.
  for (const ch of text.slice(0, MAX_DRAIN_DETAIL_BYTES)) {
    if (utf8.encode(cut + ch).length > MAX_DRAIN_DETAIL_BYTES) break;
    cut += ch;
  }
  return cut;
}
