/**
 * The compress wrapper (memberlist net.go compress, util.go compressPayload/decompressPayload).
 *
 *   +------+--------------------------------------------+
 *   | 0x09 | msgpack {Algo: 0 (LZW), Buf: LZW bytes}      |   Buf decompresses to [type][body] (or a compound)
 *   +------+--------------------------------------------+
 *
 * Algo is the only algorithm memberlist 0.2.2 and 0.5.x know (lzwAlgo = 0). An unknown one, broken LZW, output
 * past the cap and empty output are each a drop (Go would index decomp[0] of an empty result and panic).
 */
import { MessageType } from '../messages';
import { DecodeError } from './drop-reasons';
import { lzwCompress, lzwDecompress } from './lzw';
import { MsgpackWriter } from './msgpack-writer';
import type { MsgValue } from './msgpack-reader';
import { StructFields, U8_MAX } from './struct-fields';

const COMPRESSION_ALGO_LZW = 0;

/** `[09][{Algo:0, Buf}]` around a whole message or compound. */
export function encodeCompressed(payload: Uint8Array): Uint8Array {
  const buf = lzwCompress(payload);
  const w = new MsgpackWriter(buf.length + 16);
  w.byte(MessageType.compress).struct({ Algo: { uint: COMPRESSION_ALGO_LZW }, Buf: { bytes: buf } });
  return w.bytes();
}

/** Decompresses a decoded compress struct (the msgpack value after the 0x09 type byte). */
export function decompressValue(v: MsgValue, maxOutput: number): Uint8Array {
  const f = new StructFields(v, 'compress');
  const algo = f.uint('Algo', U8_MAX);
  if (algo !== COMPRESSION_ALGO_LZW) throw new DecodeError('badCompression', `unknown compression algorithm ${algo}`);
  const out = lzwDecompress(f.bytes('Buf') ?? new Uint8Array(0), maxOutput);
  if (out.length === 0) throw new DecodeError('emptyDecompressed', 'compressed payload is empty');
  return out;
}
