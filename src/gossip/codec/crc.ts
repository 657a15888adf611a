/**
 * The CRC header memberlist adds when the receiver speaks protocol >= 5 (net.go rawSendMsgPacket, ingestPacket).
 *
 *   +------+-------------------------+-------------------------+
 *   | 0x0c | CRC-32 IEEE, big-endian  | message or compound ... |
 *   +------+-------------------------+-------------------------+
 *     1 B            4 B                 the checksummed bytes
 *
 * IEEE CRC-32 is zlib's crc32 (Go hash/crc32.ChecksumIEEE); node:zlib has it since Node 20.15 (mlb needs 20.19).
 */
import { crc32 } from 'node:zlib';
import { MessageType } from '../messages';

const CRC_HEADER_BYTES = 5;

export function crc32Ieee(data: Uint8Array): number {
  return crc32(data) >>> 0;
}

export function addCrc(msg: Uint8Array): Uint8Array {
  const out = new Uint8Array(CRC_HEADER_BYTES + msg.length);
  out[0] = MessageType.hasCrc;
  new DataView(out.buffer).setUint32(1, crc32Ieee(msg));
  out.set(msg, CRC_HEADER_BYTES);
  return out;
}

/** Go checks a CRC only when the packet starts with 12 and has at least 5 bytes; shorter ones go on as-is. */
export function hasCrcHeader(buf: Uint8Array): boolean {
  return buf.length >= CRC_HEADER_BYTES && buf[0] === MessageType.hasCrc;
}

/** The checked payload, or undefined when the checksum does not match. */
export function checkCrc(buf: Uint8Array): Uint8Array | undefined {
  const expected = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(1);
  const body = buf.subarray(CRC_HEADER_BYTES);
  return crc32Ieee(body) === expected ? body : undefined;
}
