/**
 * An incremental reader for one side of a memberlist TCP stream (net.go readStream, readRemoteState,
 * readUserMsg, decryptRemoteState; label.go RemoveLabelHeaderFromStream). Fed chunks as they arrive, it yields
 * whole messages; it is pure (no socket, no timer) and never throws.
 *
 *   [f4][len][label]?  then per message one of:
 *   [0a][u32 BE length <= 20 MB][encrypted: [09][{Algo,Buf}] or [type][...]]   read whole, then decrypted
 *   [09][{Algo, Buf}]                                                          Buf -> [type][...]
 *   [06][{Join,Nodes,UserStateLen}][Nodes x pushNodeState][UserStateLen bytes]  parsed as it arrives
 *   [08][{UserMsgLen}][UserMsgLen bytes] | [00][ping] | [02][ack] | [0d][err]
 *
 * Plaintext is parsed as it arrives: a push/pull header announcing more nodes or user state than the limits is
 * refused before a single node is buffered. Any failure ends the stream (a byte stream cannot resynchronise):
 * one Drop, then everything else is ignored. Go reads one message per stream and direction; further messages
 * on the same stream are read the same way.
 */
import { type GossipMessage, MessageType, type PushNodeState } from '../messages';
import { decompressValue } from './compression';
import { CodecError, DecodeError, type Drop } from './drop-reasons';
import { decryptPayload, streamAad } from './encryption';
import type { Keyring } from './keyring';
import { labelBytes, sameBytes, splitLabel } from './label';
import { STREAM_MAX_DECOMPRESSED_BYTES, STREAM_MAX_ENCRYPTED_BYTES, STREAM_MAX_MESSAGE_BYTES } from './limits';
import {
  decodePushNodeState,
  decodePushPullHeader,
  decodeSimpleBody,
  decodeStreamMessage,
  decodeUserMsgHeader,
  isDrop,
  type PushPullHeader,
  readComplete,
} from './message-codec';
import { MsgpackIncomplete, type MsgValue, readValue } from './msgpack-reader';

export interface StreamDecodeOptions {
  readonly keyring?: Keyring;
  /** memberlist GossipVerifyIncoming (default true): with a keyring, plaintext streams are refused. */
  readonly verifyIncoming?: boolean;
  readonly label?: string;
  readonly maxDecompressedBytes?: number;
  /** Bytes one plaintext message may make the reader buffer. */
  readonly maxMessageBytes?: number;
}

export interface StreamOutput {
  readonly messages: GossipMessage[];
  readonly drops: Drop[];
}

/** Message types that travel on streams (net.go handleConn, sendAndReceiveState, sendPingAndWaitForAck). */
const STREAM_TYPES: ReadonlySet<number> = new Set([MessageType.pushPull, MessageType.ping, MessageType.ack, MessageType.user, MessageType.err]);

type Phase =
  | { readonly k: 'label' }
  | { readonly k: 'type' }
  | { readonly k: 'encHeader' }
  | { readonly k: 'encBody'; readonly len: number }
  | { readonly k: 'compressed' }
  | { readonly k: 'simple'; readonly type: number }
  | { readonly k: 'ppHeader' }
  | { readonly k: 'ppNodes'; readonly header: PushPullHeader; readonly nodes: PushNodeState[]; seen: number }
  | { readonly k: 'ppUser'; readonly header: PushPullHeader; readonly nodes: PushNodeState[] }
  | { readonly k: 'userHeader' }
  | { readonly k: 'userBody'; readonly len: number }
  | { readonly k: 'failed' };

export class StreamReader {
  private buf = new Uint8Array(4096);
  private fill = 0;
  private pos = 0;
  private msgStart = 0;
  /** Do not retry parsing until this many bytes are buffered (a value announced its length). */
  private waitFor = 0;
  private phase: Phase = { k: 'label' };
  private readonly label: Uint8Array;
  private readonly maxDecompressed: number;
  private readonly maxMessage: number;
  private out: StreamOutput = { messages: [], drops: [] };
  private largestDecompressed = 0;

  /** Throws CodecError('labelTooLong') for a configured label over 255 bytes (a configuration error). */
  constructor(private readonly opts: StreamDecodeOptions = {}) {
    this.label = labelBytes(opts.label);
    this.maxDecompressed = opts.maxDecompressedBytes ?? STREAM_MAX_DECOMPRESSED_BYTES;
    this.maxMessage = opts.maxMessageBytes ?? STREAM_MAX_MESSAGE_BYTES;
  }

  /** The largest decompressed message so far (at most maxDecompressedBytes): a metric, and a test hook. */
  get maxDecompressedSeen(): number {
    return this.largestDecompressed;
  }

  /** True once the stream was given up on; further input is ignored. */
  get failed(): boolean {
    return this.phase.k === 'failed';
  }

  /** True between messages with nothing buffered: closing now loses nothing. */
  get idle(): boolean {
    return (this.phase.k === 'type' || this.phase.k === 'label') && this.pos === this.fill;
  }

  push(chunk: Uint8Array): StreamOutput {
    if (this.phase.k !== 'failed' && chunk.length > 0) {
      this.append(chunk);
      try {
        this.run();
      } catch (e) {
        this.fail(e);
      }
    }
    return this.take();
  }

  /** The peer closed its side: a message in progress is a truncated stream. */
  end(): StreamOutput {
    if (this.phase.k !== 'failed' && !this.idle) this.fail(new DecodeError('truncatedStream', `stream ended inside a message (phase ${this.phase.k})`));
    return this.take();
  }

  private take(): StreamOutput {
    const o = this.out;
    this.out = { messages: [], drops: [] };
    return o;
  }

  private fail(e: unknown): void {
    const drop: Drop =
      e instanceof DecodeError
        ? e.toDrop()
        : e instanceof CodecError
          ? { reason: 'badMsgpack', detail: e.message }
          : { reason: 'badMsgpack', detail: `unexpected: ${String(e)}` };
    this.out.drops.push(drop);
    this.phase = { k: 'failed' };
    this.buf = new Uint8Array(0);
    this.fill = this.pos = this.msgStart = 0;
  }

  private append(chunk: Uint8Array): void {
    // Start of a message: drop what was consumed so the buffer holds at most one message and what follows it.
    if (this.pos > 0 && this.phase.k === 'type') {
      this.buf.copyWithin(0, this.pos, this.fill);
      this.fill -= this.pos;
      this.waitFor = Math.max(0, this.waitFor - this.pos);
      this.pos = this.msgStart = 0;
    }
    if (this.fill + chunk.length > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < this.fill + chunk.length) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, this.fill));
      this.buf = next;
    }
    this.buf.set(chunk, this.fill);
    this.fill += chunk.length;
  }

  private avail(): number {
    return this.fill - this.pos;
  }

  /** `n` raw bytes at pos, or undefined to wait; refuses a plaintext message growing past the limit. */
  private bytes(n: number, limit = this.maxMessage): Uint8Array | undefined {
    if (this.pos + n - this.msgStart > limit) throw new DecodeError('streamTooLarge', `stream message of more than ${limit} bytes`);
    if (this.avail() < n) return undefined;
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  private value(): MsgValue | undefined {
    if (this.fill < this.waitFor) return undefined;
    try {
      const r = readValue(this.buf.subarray(0, this.fill), this.pos);
      this.pos = r.end;
      this.waitFor = 0;
      return r.value;
    } catch (e) {
      if (!(e instanceof MsgpackIncomplete)) throw e;
      if (e.need - this.msgStart > this.maxMessage) throw new DecodeError('streamTooLarge', `stream message of more than ${this.maxMessage} bytes`);
      this.waitFor = e.need;
      return undefined;
    }
  }

  private emit(m: GossipMessage): void {
    this.out.messages.push(m);
    this.phase = { k: 'type' };
  }

  /** A decrypted message, complete in memory: maybe compressed once (Go never nests compression on streams). */
  private decrypted(plain: Uint8Array): void {
    if (plain.length === 0) throw new DecodeError('emptyMessage', 'empty stream message');
    if (plain[0] === MessageType.compress) this.complete(this.decompress(readComplete(plain, 1, 'compress').value));
    else this.complete(plain);
  }

  private decompress(v: MsgValue): Uint8Array {
    const out = decompressValue(v, this.maxDecompressed);
    this.largestDecompressed = Math.max(this.largestDecompressed, out.length);
    return out;
  }

  /** An uncompressed message, complete in memory. */
  private complete(msg: Uint8Array): void {
    const type = msg[0] as number;
    if (!STREAM_TYPES.has(type)) throw new DecodeError('unknownType', `message type ${type} is not handled on a stream`);
    const r = decodeStreamMessage(msg, this.out.drops);
    if (r instanceof DecodeError) throw r;
    this.emit(r);
  }

  private run(): void {
    for (;;) {
      const p = this.phase;
      switch (p.k) {
        case 'failed':
          return;
        case 'label': {
          if (this.avail() === 0) return;
          const s = splitLabel(this.buf.subarray(this.pos, this.fill), false);
          if (s.kind === 'incomplete') return;
          const got = s.kind === 'label' ? s.label : new Uint8Array(0);
          if (!sameBytes(got, this.label)) throw new DecodeError('badLabel', 'stream label differs from the configured label');
          if (s.kind === 'label') this.pos += 2 + s.label.length;
          this.phase = { k: 'type' };
          break;
        }
        case 'type': {
          if (this.avail() === 0) return;
          this.msgStart = this.pos;
          const type = this.buf[this.pos] as number;
          if (type === MessageType.encrypt) {
            if (!this.opts.keyring) throw new DecodeError('unexpectedEncryption', 'stream is encrypted and no keyring is configured');
            this.phase = { k: 'encHeader' };
            break;
          }
          if (this.opts.keyring && (this.opts.verifyIncoming ?? true)) throw new DecodeError('notEncrypted', 'encryption is configured but the stream is not encrypted');
          this.pos++;
          if (type === MessageType.compress) this.phase = { k: 'compressed' };
          else if (type === MessageType.pushPull) this.phase = { k: 'ppHeader' };
          else if (type === MessageType.user) this.phase = { k: 'userHeader' };
          else if (STREAM_TYPES.has(type)) this.phase = { k: 'simple', type };
          else throw new DecodeError('unknownType', `message type ${type} is not handled on a stream`);
          break;
        }
        case 'encHeader': {
          const h = this.bytes(5, Infinity);
          if (!h) return;
          const len = new DataView(h.buffer, h.byteOffset, 5).getUint32(1);
          // memberlist net.go decryptRemoteState: refused before reading the body.
          if (len > STREAM_MAX_ENCRYPTED_BYTES) throw new DecodeError('streamTooLarge', `encrypted stream message of ${len} bytes (limit ${STREAM_MAX_ENCRYPTED_BYTES})`);
          this.phase = { k: 'encBody', len };
          break;
        }
        case 'encBody': {
          const body = this.bytes(p.len, Infinity);
          if (!body) return;
          this.decrypted(decryptPayload(this.opts.keyring as Keyring, body, streamAad(p.len, this.label)));
          break;
        }
        case 'compressed': {
          const v = this.value();
          if (v === undefined) return;
          this.complete(this.decompress(v));
          break;
        }
        case 'simple': {
          const v = this.value();
          if (v === undefined) return;
          this.emit(decodeSimpleBody(p.type, v) as GossipMessage);
          break;
        }
        case 'ppHeader': {
          const v = this.value();
          if (v === undefined) return;
          this.phase = { k: 'ppNodes', header: decodePushPullHeader(v), nodes: [], seen: 0 };
          break;
        }
        case 'ppNodes': {
          if (p.seen === p.header.nodes) {
            this.phase = { k: 'ppUser', header: p.header, nodes: p.nodes };
            break;
          }
          const v = this.value();
          if (v === undefined) return;
          const n = decodePushNodeState(v);
          p.seen++;
          if (isDrop(n)) this.out.drops.push(n);
          else p.nodes.push(n);
          break;
        }
        case 'ppUser': {
          const u = this.bytes(p.header.userStateLen);
          if (!u) return;
          this.emit({ type: 'pushPull', join: p.header.join, nodes: p.nodes, userState: u.slice() });
          break;
        }
        case 'userHeader': {
          const v = this.value();
          if (v === undefined) return;
          this.phase = { k: 'userBody', len: decodeUserMsgHeader(v) };
          break;
        }
        case 'userBody': {
          const u = this.bytes(p.len);
          if (!u) return;
          this.emit({ type: 'user', payload: u.slice() });
          break;
        }
      }
    }
  }
}
