/**
 * One message on a TCP stream, as memberlist writes it (net.go rawSendMsgStream, sendLocalState, sendUserMsg,
 * encryptLocalState; label.go AddLabelHeaderToStream).
 *
 *   [f4][len][label]                                  once, first on the stream, when a label is configured
 *   [0a][u32 BE length][vsn][nonce][ciphertext+tag]    when encrypting; AAD = [0a][length] + label
 *       ^ inside, or directly when not encrypting:
 *   [09][{Algo:0, Buf}]                               ALWAYS when compression is on (no "only if smaller")
 *       ^ inside, or directly when not compressing:
 *   [type][msgpack...]                                 pushPull: header, node states, user state bytes;
 *                                                      user: {UserMsgLen} then the bytes; ping, ack, err
 */
import type { GossipMessage } from '../messages';
import { encodeCompressed } from './compression';
import { CodecError } from './drop-reasons';
import { type EncryptionVersion, encryptedLength, encryptPayload, type NonceSource, randomNonce, streamAad } from './encryption';
import type { Keyring } from './keyring';
import { labelBytes, labelHeader } from './label';
import { STREAM_MAX_ENCRYPTED_BYTES } from './limits';
import { MessageType } from '../messages';
import { encodeStreamMessage } from './message-codec';

export interface StreamEncodeOptions {
  /** memberlist EnableCompression: streams are then always compressed. */
  readonly compress?: boolean;
  readonly keyring?: Keyring;
  readonly encryptionVersion?: EncryptionVersion;
  readonly nonce?: NonceSource;
  readonly label?: string;
}

/** The label header a stream starts with (empty without a label). Write it once, before the first message. */
export function streamPreamble(opts: StreamEncodeOptions = {}): Uint8Array {
  return labelHeader(labelBytes(opts.label));
}

/** One message, wrapped for a stream, without the label header (see streamPreamble). */
export function encodeStreamBody(m: GossipMessage, opts: StreamEncodeOptions = {}): Uint8Array {
  let buf = encodeStreamMessage(m);
  if (opts.compress) buf = encodeCompressed(buf);
  if (!opts.keyring) return buf;
  const version = opts.encryptionVersion ?? 1;
  const length = encryptedLength(version, buf.length);
  if (length > STREAM_MAX_ENCRYPTED_BYTES) {
    // The receiver refuses it unread (net.go decryptRemoteState): fail here instead of on the other side.
    throw new CodecError('badMessage', `encrypted stream message of ${length} bytes exceeds ${STREAM_MAX_ENCRYPTED_BYTES}`);
  }
  const aad = streamAad(length, labelBytes(opts.label));
  const sealed = encryptPayload(version, opts.keyring.primary, buf, aad, (opts.nonce ?? randomNonce)());
  const out = new Uint8Array(5 + sealed.length);
  out[0] = MessageType.encrypt;
  new DataView(out.buffer).setUint32(1, length);
  out.set(sealed, 5);
  return out;
}

/** A whole stream carrying one message: label header (if any) and the wrapped message. */
export function encodeStream(m: GossipMessage, opts: StreamEncodeOptions = {}): Uint8Array {
  const pre = streamPreamble(opts);
  const body = encodeStreamBody(m, opts);
  if (pre.length === 0) return body;
  const out = new Uint8Array(pre.length + body.length);
  out.set(pre);
  out.set(body, pre.length);
  return out;
}
