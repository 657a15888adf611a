/**
 * Frames the TCP byte stream into BGP messages. TCP delivers arbitrary chunks, so the reader buffers until a
 * header (19 octets) is complete, checks it at once (RFC 4271 6.1: a bad marker, length or type is reported
 * before waiting for a body that may never come), then waits for the length it announced. The first error stops
 * the reader for good: the session sends its NOTIFICATION and closes (RFC 4271 6.1-6.3), and every later push
 * returns the same error and no messages. Never throws.
 */
import { BGP_HEADER_BYTES, BGP_MAX_MESSAGE_BYTES, type BgpMessage } from '../bgp-messages';
import type { BgpDecodeError, CodecOptions } from './codec-errors';
import { checkHeader } from './message-header';
import { decodeMessage } from './message-codec';

export interface ReadResult {
  /** Complete messages in arrival order (an UPDATE under RFC 7606 treat-as-withdraw carries `treatAsWithdraw`). */
  readonly messages: BgpMessage[];
  /** Set once the stream is broken; messages decoded before the error in the same push are still returned. */
  readonly error?: BgpDecodeError;
}

/** The buffer never needs more than one message plus one chunk; start with room for one message. */
const INITIAL_BUFFER_BYTES = BGP_MAX_MESSAGE_BYTES;

export class BgpMessageReader {
  private buffer = new Uint8Array(INITIAL_BUFFER_BYTES);
  private start = 0;
  private end = 0;
  private failure: BgpDecodeError | undefined;

  constructor(private readonly options: CodecOptions) {}

  /** The error that stopped the reader, if any. */
  get error(): BgpDecodeError | undefined {
    return this.failure;
  }

  /** Octets received but not yet part of a complete message. */
  get bufferedBytes(): number {
    return this.end - this.start;
  }

  push(chunk: Uint8Array): ReadResult {
    if (this.failure) return { messages: [], error: this.failure };
    this.append(chunk);
    const messages: BgpMessage[] = [];
    while (this.end - this.start >= BGP_HEADER_BYTES) {
      const header = checkHeader(this.buffer.subarray(this.start, this.start + BGP_HEADER_BYTES));
      if (!header.ok) return this.fail(messages, header.error);
      const { length } = header.header;
      if (this.end - this.start < length) break;
      const decoded = decodeMessage(this.buffer.subarray(this.start, this.start + length), this.options);
      this.start += length;
      if (!decoded.ok) return this.fail(messages, decoded.error);
      messages.push(decoded.message);
    }
    return { messages };
  }

  private fail(messages: BgpMessage[], error: BgpDecodeError): ReadResult {
    this.failure = error;
    this.buffer = new Uint8Array(0);
    this.start = this.end = 0;
    return { messages, error };
  }

  /** Appends, compacting first (decoded messages reference copies, so moving bytes is safe). */
  private append(chunk: Uint8Array): void {
    if (this.start > 0) {
      this.buffer.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    if (this.end + chunk.length > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.end + chunk.length));
      grown.set(this.buffer.subarray(0, this.end));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.end);
    this.end += chunk.length;
  }
}
