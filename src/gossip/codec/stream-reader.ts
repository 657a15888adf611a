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
 * refused before a single node is buffered. An encrypted message's length is checked from its header, reserved
 * from the shared StreamBudget (when given) and read into one buffer of exactly that length: nothing is buffered
 * past the budget, and nothing doubles. Plaintext buffers reserve their growth from the same budget. Any failure ends the stream (a byte stream cannot resynchronise):
 * one Drop, then everything else is ignored. Go reads one message per stream and direction; further messages
 * on the same stream are read the same way.
 */
import { type GossipMessage, MessageType, type PushNodeState } from '../messages';
import { decompressValue } from './compression';
import { CodecError, DecodeError, type Drop } from './drop-reasons';
import { decryptPayload, streamAad } from './encryption';
import type { Keyring } from './keyring';
import type { StreamBudget } from './stream-budget';
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
  /** Shared by every inbound stream: what this reader buffers is reserved from it (refused: streamBudgetExceeded). */
  readonly budget?: StreamBudget;
}

export interface StreamOutput {
  readonly messages: GossipMessage[];
  readonly drops: Drop[];
}

/** Message types that travel on streams (net.go handleConn, sendAndReceiveState, sendPingAndWaitForAck). */
const STREAM_TYPES: ReadonlySet<number> = new Set([
  MessageType.pushPull,
  MessageType.ping,
  MessageType.ack,
  MessageType.user,
  MessageType.err,
]);

/** The first buffer, allocated when the first bytes arrive: a TCP ping or a small push/pull fits. */
const INITIAL_BUFFER_BYTES = 4096;
/** Room past a message at the message limit for the bytes of the next one that arrive in the same chunk. */
const STREAM_LOOKAHEAD_BYTES = 64 * 1024;

/**
 * A buffer of at most `max` bytes, empty until grown. Resizable (ES2024): shrinking it to 0 returns its pages to
 * the system at once, where a plain ArrayBuffer would stay resident until V8's next full collection.
 */
function releasableBuffer(max: number): ArrayBuffer {
  return new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer)(0, { maxByteLength: max });
}

function resize(buffer: ArrayBuffer, bytes: number): void {
  (buffer as unknown as { resize(n: number): void }).resize(bytes);
}

type Phase =
  | { readonly k: 'label' }
  | { readonly k: 'type' }
  | { readonly k: 'encHeader' }
  | { readonly k: 'encBody'; readonly len: number; readonly body: ArrayBuffer; got: number }
  | { readonly k: 'compressed' }
  | { readonly k: 'simple'; readonly type: number }
  | { readonly k: 'ppHeader' }
  | { readonly k: 'ppNodes'; readonly header: PushPullHeader; readonly nodes: PushNodeState[]; seen: number }
  | { readonly k: 'ppUser'; readonly header: PushPullHeader; readonly nodes: PushNodeState[] }
  | { readonly k: 'userHeader' }
  | { readonly k: 'userBody'; readonly len: number }
  | { readonly k: 'failed' };

export class StreamReader {
  private buf = new Uint8Array(0);
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
  /** Bytes reserved from opts.budget: the capacity of buf plus an encrypted body being read. */
  private reserved = 0;

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
      try {
        this.append(chunk);
        this.run();
      } catch (e) {
        this.fail(e);
      }
    }
    return this.take();
  }

  /** The peer closed its side: a message in progress is a truncated stream. */
  end(): StreamOutput {
    if (this.phase.k !== 'failed' && !this.idle)
      this.fail(new DecodeError('truncatedStream', `stream ended inside a message (phase ${this.phase.k})`));
    return this.take();
  }

  /** Bytes this reader holds reserved from the budget now. */
  get reservedBytes(): number {
    return this.reserved;
  }

  /** The stream is gone (closed, or its one message was taken): frees the buffers and gives back the budget. */
  dispose(): void {
    if (this.phase.k === 'encBody') resize(this.phase.body, 0);
    this.buf = new Uint8Array(0);
    this.fill = this.pos = this.msgStart = this.waitFor = 0;
    if (this.phase.k !== 'failed') this.phase = { k: 'type' };
    this.hold(0);
  }

  /** Sets what this reader holds to `bytes`, reserving growth from the budget; false when it does not fit. */
  private hold(bytes: number): boolean {
    const budget = this.opts.budget;
    if (budget) {
      if (bytes > this.reserved && !budget.tryReserve(bytes - this.reserved)) return false;
      if (bytes < this.reserved) budget.release(this.reserved - bytes);
    }
    this.reserved = bytes;
    return true;
  }

  private overBudget(what: string, bytes: number): DecodeError {
    const b = this.opts.budget as StreamBudget;
    return new DecodeError(
      'streamBudgetExceeded',
      `${what} of ${bytes} bytes does not fit: inbound streams already hold ${b.used} of ${b.limit} bytes`,
    );
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
    if (this.phase.k === 'encBody') resize(this.phase.body, 0);
    this.phase = { k: 'failed' };
    this.buf = new Uint8Array(0);
    this.fill = this.pos = this.msgStart = 0;
    this.hold(0);
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
      const need = this.fill + chunk.length;
      let cap = Math.max(this.buf.length * 2, INITIAL_BUFFER_BYTES);
      while (cap < need) cap *= 2;
      // Doubling past the message limit would hold memory no message may use (bytes beyond it fail the stream).
      cap = Math.max(need, Math.min(cap, this.maxMessage + STREAM_LOOKAHEAD_BYTES));
      const encBody = this.phase.k === 'encBody' ? this.phase.len : 0;
      if (!this.hold(cap + encBody)) throw this.overBudget('a buffer', cap);
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
      if (e.need - this.msgStart > this.maxMessage)
        throw new DecodeError('streamTooLarge', `stream message of more than ${this.maxMessage} bytes`);
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
          if (this.opts.keyring && (this.opts.verifyIncoming ?? true))
            throw new DecodeError('notEncrypted', 'encryption is configured but the stream is not encrypted');
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
          if (len > STREAM_MAX_ENCRYPTED_BYTES)
            throw new DecodeError('streamTooLarge', `encrypted stream message of ${len} bytes (limit ${STREAM_MAX_ENCRYPTED_BYTES})`);
          // Reserved whole from the header, before a byte of the body is kept: a peer without the key cannot make
          // the node buffer more than the budget, however many streams it opens.
          if (!this.hold(this.buf.length + len)) throw this.overBudget('an encrypted stream message', len);
          this.phase = { k: 'encBody', len, body: releasableBuffer(len), got: 0 };
          break;
        }
        case 'encBody': {
          // Moved out of buf as it arrives, so buf stays one chunk long while the body fills its own buffer.
          const n = Math.min(this.avail(), p.len - p.got);
          // Grown as bytes arrive: what the peer announced is reserved, only what it sent is resident.
          resize(p.body, p.got + n);
          new Uint8Array(p.body).set(this.buf.subarray(this.pos, this.pos + n), p.got);
          p.got += n;
          this.pos += n;
          if (p.got < p.len) {
            this.fill = this.pos = this.msgStart = 0;
            return;
          }
          let plain: Uint8Array;
          try {
            plain = decryptPayload(this.opts.keyring as Keyring, new Uint8Array(p.body), streamAad(p.len, this.label));
          } finally {
            // Given back to the system now, not at the next full GC: after a flood from peers without the key,
            // the node's memory returns as soon as their streams fail.
            resize(p.body, 0);
          }
          this.hold(this.buf.length);
          this.decrypted(plain);
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
