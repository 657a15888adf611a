/**
 * Why a node's health checks fail, for the other nodes' `mlb explain`: "health check demo/web failing on node-2
 * since 17:20:01: HTTP 503". The election needs only passing or not, which the health report carries
 * (health-report.ts); the details travel in a record of their own so that a long detail can never push the
 * report past one gossip packet and slow down the verdict that moves the IP. Pure: the codec and the merge.
 *
 * The v1 layout below is what releases before records version 2 read and write (records/legacy-records.ts);
 * records version 2 sends records/health-details-body.ts.
 *
 * Layout, version 1 (big-endian; strings UTF-8):
 *   "mlbd" | version u8 | nodeLen u8 | node | epoch u64 | seq u64 | count u16 |
 *   count x ([klen u8][key][since u64][dlen u8][detail])
 * Only failing checks are listed. A decoder ignores bytes after the last entry (room for later fields).
 */

const HEALTH_DETAILS_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x64); // "mlbd"
const HEALTH_DETAILS_VERSION = 1;
/**
 * A detail is cut to this many bytes in gossip: "connect ECONNREFUSED [2001:db8::1]:65535" and "timed out after
 * 1000 ms" fit; a program's long last line is cut. The local log and status keep the whole detail.
 */
export const HEALTH_DETAIL_GOSSIP_MAX_BYTES = 96;
/**
 * The largest record encoded or accepted. Failing checks beyond it are left out (their nodes still show as
 * failing, only without why); bounds what a peer can make us allocate.
 */
const HEALTH_DETAILS_MAX_BYTES = 16 * 1024;
const MAX_STRING_BYTES = 255;

export interface FailingCheck {
  /** When the check last turned failing (or monitoring began), the reporting node's clock, epoch ms. */
  readonly since: number;
  /** The latest probe's result: "HTTP 503", "connect ECONNREFUSED 127.0.0.1:8080", "timed out after 1000 ms". */
  readonly detail: string;
}

export interface HealthDetails {
  readonly node: string;
  /** The reporting daemon's start time: a restarted node's details win over its previous life's. */
  readonly epoch: number;
  readonly seq: number;
  /** Service key -> why its check fails on this node. */
  readonly failing: Readonly<Record<string, FailingCheck>>;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Never throws: strings are cut to their limits and entries that do not fit are left out. */
export function encodeHealthDetails(details: HealthDetails): Uint8Array {
  const parts: Uint8Array[] = [HEALTH_DETAILS_MAGIC, Uint8Array.of(HEALTH_DETAILS_VERSION)];
  parts.push(lengthPrefixed(cutUtf8(details.node, MAX_STRING_BYTES)));
  parts.push(u64(details.epoch), u64(details.seq));
  const entries: Uint8Array[] = [];
  let size = parts.reduce((n, p) => n + p.length, 0) + 2;
  for (const [key, check] of Object.entries(details.failing).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const keyBytes = utf8.encode(key);
    if (keyBytes.length > MAX_STRING_BYTES) continue;
    const entry = concat([
      lengthPrefixed(keyBytes),
      u64(check.since),
      lengthPrefixed(cutUtf8(check.detail, HEALTH_DETAIL_GOSSIP_MAX_BYTES)),
    ]);
    if (size + entry.length > HEALTH_DETAILS_MAX_BYTES) break;
    size += entry.length;
    entries.push(entry);
  }
  const count = new Uint8Array(2);
  new DataView(count.buffer).setUint16(0, entries.length);
  return concat([...parts, count, ...entries]);
}

/** The details, or undefined for anything damaged, too large or of another version. Never throws. */
export function decodeHealthDetails(bytes: Uint8Array): HealthDetails | undefined {
  if (bytes.length > HEALTH_DETAILS_MAX_BYTES || bytes.length < HEALTH_DETAILS_MAGIC.length + 1) return undefined;
  if (!HEALTH_DETAILS_MAGIC.every((b, i) => bytes[i] === b) || bytes[HEALTH_DETAILS_MAGIC.length] !== HEALTH_DETAILS_VERSION)
    return undefined;
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = HEALTH_DETAILS_MAGIC.length + 1;
    const text = (): string => {
      const length = bytes[at];
      if (length === undefined || at + 1 + length > bytes.length) throw new RangeError('truncated');
      const value = utf8Decoder.decode(bytes.subarray(at + 1, at + 1 + length));
      at += 1 + length;
      return value;
    };
    const number = (): number => {
      const n = view.getBigUint64(at);
      at += 8;
      if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('too large');
      return Number(n);
    };
    const node = text();
    const epoch = number();
    const seq = number();
    const entries: [string, FailingCheck][] = [];
    const count = view.getUint16(at);
    at += 2;
    for (let n = count; n > 0; n--) {
      const key = text();
      const since = number();
      entries.push([key, { since, detail: text() }]);
    }
    if (node === '') return undefined;
    // Entries, not assignment: a key called "__proto__" must stay a key.
    return { node, epoch, seq, failing: Object.fromEntries(entries) };
  } catch {
    return undefined;
  }
}

/** Keeps the newest details per node (higher epoch, then higher seq); true when the table changed. */
export function mergeHealthDetails(
  table: ReadonlyMap<string, HealthDetails>,
  incoming: HealthDetails,
): { table: ReadonlyMap<string, HealthDetails>; changed: boolean } {
  const current = table.get(incoming.node);
  const newer = current === undefined || incoming.epoch > current.epoch || (incoming.epoch === current.epoch && incoming.seq > current.seq);
  return newer ? { table: new Map(table).set(incoming.node, incoming), changed: true } : { table, changed: false };
}

function cutUtf8(text: string, maxBytes: number): Uint8Array {
  let bytes = utf8.encode(text);
  if (bytes.length <= maxBytes) return bytes;
  // Cut on a character boundary (a UTF-8 continuation byte is 10xxxxxx).
  let end = maxBytes;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  bytes = bytes.subarray(0, end);
  return bytes;
}

function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  return concat([Uint8Array.of(bytes.length), bytes]);
}

function u64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(Math.max(0, Math.trunc(n))));
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
