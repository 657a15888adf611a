/**
 * mlb's node meta: what a node tells the cluster about itself in memberlist's Meta field (at most 512 bytes),
 * so nodeSelectors, the exclusion label, drain and warm-up work without a Kubernetes API (docs/architecture.md,
 * "Node facts travel in gossip").
 *
 * MetalLB speakers send no Meta. A member whose Meta does not start with MAGIC is therefore a plain MetalLB
 * speaker, and while one is present mlb-only election inputs are ignored ("Compatibility first").
 *
 * Layout, version 1 (all lengths u8, strings UTF-8):
 *   0      3        4         5        6
 *   +------+--------+---------+--------+-----------------------------+---------------------------------+
 *   | "mlb"| version| flags   | labels | labels x ([klen][key][vlen][value]) | conds | conds x ([tlen][type][status]) |
 *   +------+--------+---------+--------+-----------------------------+---------------------------------+
 * flags: bit 0 draining, bit 1 warming up. status: 0 False, 1 True, 2 Unknown.
 * A decoder ignores bytes after the conditions, so later versions can append fields. Appended since: the node's
 * link-layer addresses, [count u8] then 6 bytes each, so a split-brain report and `mlb arping` can name the node
 * behind a MAC (a decoder that predates them stops before them, as promised). Appended after the MACs: the
 * version of mlb's gossip records the node understands [u8] and its release [len u8][UTF-8], so rolling upgrades
 * can negotiate record formats (src/daemon/records-protocol.ts) and `mlb status` can show who runs what. A node
 * that sends them always sends the MAC count (0 when it has none) so the fields stay at a fixed position.
 *
 * META_VERSION stays 1 for every append: a decoder refuses any other version, and a refused meta makes the
 * member a plain MetalLB speaker in that decoder's election. Only a change older decoders would misread may
 * bump it, and that would split elections during a rolling upgrade.
 */
import { CodedError } from '../errors/coded-error';
import { META_MAX_BYTES } from './messages';

const META_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62); // "mlb"
const META_VERSION = 1;
/** Kubernetes label keys are at most 253 + 1 + 63 bytes, but a u8 length keeps meta small; longer ones are refused. */
const META_MAX_STRING_BYTES = 255;
const FLAG_DRAINING = 0b01;
const FLAG_WARMING_UP = 0b10;
const STATUS_CODES = ['False', 'True', 'Unknown'] as const;
type ConditionStatus = (typeof STATUS_CODES)[number];

export interface NodeMeta {
  readonly labels: Readonly<Record<string, string>>;
  readonly conditions: readonly { readonly type: string; readonly status: ConditionStatus }[];
  /** `mlb drain`: the node gives up its IPs but stays in the cluster. */
  readonly draining: boolean;
  /** Flap damping: a node back from a crash does not take IPs until its warm-up ends. */
  readonly warmingUp: boolean;
  /** The MACs of the interfaces it may announce on, lowercase "aa:bb:cc:dd:ee:ff" (absent from older nodes). */
  readonly macs?: readonly string[];
  /** The newest mlb gossip records version it understands (absent from nodes older than the field). */
  readonly recordsVersion?: number;
  /** Its release, as `mlb version` names it (absent from nodes older than the field). */
  readonly release?: string;
}

/** The release text is for people; a long one (a packager's suffix) is cut rather than crowding out labels. */
export const META_MAX_RELEASE_BYTES = 64;

export class NodeMetaError extends CodedError<'metaTooLarge' | 'metaStringTooLong' | 'metaBadMac' | 'metaBadVersion'> {}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Encodes meta; throws NodeMetaError when it cannot fit memberlist's 512 bytes, naming what to trim. */
export function encodeNodeMeta(meta: NodeMeta): Uint8Array {
  const parts: number[] = [...META_MAGIC, META_VERSION, (meta.draining ? FLAG_DRAINING : 0) | (meta.warmingUp ? FLAG_WARMING_UP : 0)];
  const labels = Object.entries(meta.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  pushCount(parts, labels.length, 'labels');
  for (const [key, value] of labels) {
    pushString(parts, key);
    pushString(parts, value);
  }
  pushCount(parts, meta.conditions.length, 'conditions');
  for (const c of meta.conditions) {
    pushString(parts, c.type);
    parts.push(STATUS_CODES.indexOf(c.status));
  }
  if (meta.macs !== undefined || meta.recordsVersion !== undefined) {
    pushCount(parts, meta.macs?.length ?? 0, 'MACs');
    for (const mac of meta.macs ?? []) parts.push(...macBytes(mac));
  }
  if (meta.recordsVersion !== undefined) {
    if (!Number.isInteger(meta.recordsVersion) || meta.recordsVersion < 0 || meta.recordsVersion > 255) {
      throw new NodeMetaError('metaBadVersion', `records version ${meta.recordsVersion} is not an integer 0..255`);
    }
    parts.push(meta.recordsVersion);
    pushString(parts, truncateUtf8(meta.release ?? '', META_MAX_RELEASE_BYTES));
  }
  if (parts.length > META_MAX_BYTES) {
    throw new NodeMetaError(
      'metaTooLarge',
      `node meta is ${parts.length} bytes, memberlist allows ${META_MAX_BYTES} bytes: publish fewer or shorter labels (--node-labels)`,
    );
  }
  return Uint8Array.from(parts);
}

/**
 * Decodes meta. Returns undefined for anything that is not mlb meta (a MetalLB speaker's empty Meta, another
 * program's bytes, or a damaged or newer-but-incompatible encoding): such a member is treated as plain MetalLB.
 */
export function decodeNodeMeta(bytes: Uint8Array | undefined): NodeMeta | undefined {
  if (!bytes || bytes.length < META_MAGIC.length + 2) return undefined;
  if (!META_MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  if (bytes[META_MAGIC.length] !== META_VERSION) return undefined;
  try {
    const reader = new Reader(bytes, META_MAGIC.length + 1);
    const flags = reader.byte();
    // Entries, not assignment: a label may be called "__proto__".
    const labelEntries: [string, string][] = [];
    for (let n = reader.byte(); n > 0; n--) labelEntries.push([reader.string(), reader.string()]);
    const labels = Object.fromEntries(labelEntries);
    const conditions: { type: string; status: ConditionStatus }[] = [];
    for (let n = reader.byte(); n > 0; n--) {
      const type = reader.string();
      const status = STATUS_CODES[reader.byte()];
      if (!status) return undefined;
      conditions.push({ type, status });
    }
    const decoded: NodeMeta = { labels, conditions, draining: (flags & FLAG_DRAINING) !== 0, warmingUp: (flags & FLAG_WARMING_UP) !== 0 };
    if (reader.remaining() === 0) return decoded;
    const macs: string[] = [];
    for (let n = reader.byte(); n > 0; n--) macs.push(reader.mac());
    if (reader.remaining() === 0) return { ...decoded, macs };
    const recordsVersion = reader.byte();
    const release = reader.string();
    // Bytes after these are a newer node's appended fields: ignored, as this layout promises.
    return { ...decoded, macs, recordsVersion, ...(release ? { release } : {}) };
  } catch {
    return undefined;
  }
}

const MAC_BYTES = 6;

/** The longest prefix of `text` that fits in `max` UTF-8 bytes, never splitting a character. */
function truncateUtf8(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (utf8.encode(out + ch).length > max) break;
    out += ch;
  }
  return out;
}

function macBytes(mac: string): number[] {
  const bytes = mac.split(':').map((h) => Number.parseInt(h, 16));
  if (bytes.length !== MAC_BYTES || bytes.some((b) => !(b >= 0 && b <= 255)))
    throw new NodeMetaError('metaBadMac', `"${mac}" is not a MAC address`);
  return bytes;
}

function pushCount(parts: number[], n: number, what: string): void {
  if (n > 255) throw new NodeMetaError('metaTooLarge', `node meta can carry at most 255 ${what}, not ${n}`);
  parts.push(n);
}

function pushString(parts: number[], text: string): void {
  const bytes = utf8.encode(text);
  if (bytes.length > META_MAX_STRING_BYTES) {
    throw new NodeMetaError(
      'metaStringTooLong',
      `"${text.slice(0, 40)}..." is ${bytes.length} bytes; node meta strings are at most ${META_MAX_STRING_BYTES}`,
    );
  }
  parts.push(bytes.length, ...bytes);
}

class Reader {
  constructor(
    private readonly bytes: Uint8Array,
    private offset: number,
  ) {}

  byte(): number {
    const b = this.bytes[this.offset++];
    if (b === undefined) throw new RangeError('meta truncated');
    return b;
  }

  remaining(): number {
    return this.bytes.length - this.offset;
  }

  mac(): string {
    if (this.offset + MAC_BYTES > this.bytes.length) throw new RangeError('meta truncated');
    const text = [...this.bytes.subarray(this.offset, this.offset + MAC_BYTES)].map((b) => b.toString(16).padStart(2, '0')).join(':');
    this.offset += MAC_BYTES;
    return text;
  }

  string(): string {
    const length = this.byte();
    if (this.offset + length > this.bytes.length) throw new RangeError('meta truncated');
    const text = utf8Decoder.decode(this.bytes.subarray(this.offset, this.offset + length));
    this.offset += length;
    return text;
  }
}
