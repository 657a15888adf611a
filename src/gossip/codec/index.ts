/**
 * memberlist's wire formats as pure, synchronous codecs (docs/memberlist-wire.md). Messages are the types of
 * ../messages.ts; bytes in, bytes out; time, randomness (nonces) and I/O are the caller's.
 */
export { DROP_REASONS, DropReason, type DropReasonName, type Drop, CodecError, DecodeError, EncodeErrorCode } from './drop-reasons';
export * from './limits';
export { decodeMessage, decodeStreamMessage, encodeMessage, encodeStreamMessage } from './message-codec';
export { decodeCompound, encodeCompound, type CompoundParts } from './compound';
export { addCrc, checkCrc, crc32Ieee, hasCrcHeader } from './crc';
export { lzwCompress, lzwDecompress } from './lzw';
export { decompressValue, encodeCompressed } from './compression';
export { addLabel, labelHeader, splitLabel } from './label';
export { AES_KEY_SIZES, Keyring } from './keyring';
export {
  decryptPayload,
  ENCRYPTION_OVERHEAD,
  encryptedLength,
  encryptionVersionFor,
  encryptPayload,
  type EncryptionVersion,
  type NonceSource,
  randomNonce,
  streamAad,
} from './encryption';
export { metallbKeyFromSecret } from './metallb-key';
export {
  decodePacket,
  type DecodedPacket,
  encodePacket,
  type PacketDecodeOptions,
  type PacketEncodeOptions,
  packetOverhead,
} from './packet-pipeline';
export { StreamReader, type StreamDecodeOptions, type StreamOutput } from './stream-reader';
export { StreamBudget } from './stream-budget';
export { encodeStream, encodeStreamBody, type StreamEncodeOptions, streamPreamble } from './stream-writer';
