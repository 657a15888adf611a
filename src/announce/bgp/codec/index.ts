// src/announce/bgp/codec: BGP-4 messages to and from bytes (RFC 4271, 4760, 6793, 5492, 4724, 1997, 8092, 2918,
// 7606). Pure: no sockets, no timers.
export { encodeMessage, decodeMessage, type DecodeResult } from './message-codec';
export { BgpMessageReader, type ReadResult } from './message-reader';
export { BgpDecodeError, BgpEncodeError, BgpEncodeErrorCode, notificationFor, type CodecOptions } from './codec-errors';
export { endOfRib, endOfRibFamily, isEndOfRib } from './end-of-rib';
export { AttributeFlag, AttributeType } from './attribute-types';
