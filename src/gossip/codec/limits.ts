/**
 * Every size limit of the codec in one place. Each cites where memberlist has the same number, or says why mlb
 * picks its own where memberlist has none (memberlist trusts many lengths that mlb must not).
 */

/** memberlist net_transport.go udpPacketBufSize: the receive buffer, so no packet is ever longer. */
export const UDP_PACKET_MAX_BYTES = 65_536;

/** memberlist config.go UDPBufferSize default: the budget a sender fills with one message plus piggybacks. */
export const UDP_BUFFER_SIZE = 1400;

/** memberlist net.go compoundHeaderOverhead: type and count bytes of a compound, assumed once per packet. */
export const COMPOUND_HEADER_OVERHEAD = 2;

/** memberlist net.go compoundOverhead: the u16 length of one compound part. */
export const COMPOUND_PART_OVERHEAD = 2;

/** memberlist net.go userMsgOverhead: the type byte that wraps a delegate's broadcast as a user message. */
export const USER_MESSAGE_OVERHEAD = 1;

/** memberlist util.go makeCompoundMessage: the part count is one byte. */
export const COMPOUND_MAX_PARTS = 255;

/** memberlist util.go decodeCompoundMessage: a part length is a u16. */
export const COMPOUND_PART_MAX_BYTES = 0xffff;

/**
 * Compound inside compress inside compound...: memberlist recurses without bound (net.go handleCommand); a
 * packet is at most 64 KiB, but each level of compress can multiply it, so mlb stops at this depth. Go never
 * nests deeper than compress(compound(messages)), which is depth 2.
 */
export const PACKET_MAX_NESTING = 4;

/** memberlist label.go LabelMaxSize: the length byte of the label header. */
export const LABEL_MAX_BYTES = 255;

/** memberlist security.go: version byte, 12-byte nonce, 16-byte GCM tag. */
export const ENCRYPTION_VERSION_BYTES = 1;
export const ENCRYPTION_NONCE_BYTES = 12;
export const ENCRYPTION_TAG_BYTES = 16;
/** memberlist security.go encryptOverhead(1): version 1 adds 29 bytes. */
export const ENCRYPTION_OVERHEAD_V1 = 29;
/** memberlist security.go encryptOverhead(0): version 0 adds up to 45 bytes (PKCS7 pads by 1..16). */
export const ENCRYPTION_OVERHEAD_V0 = 45;

/** memberlist net.go maxPushStateBytes: an encrypted stream longer than this is refused before it is read. */
export const STREAM_MAX_ENCRYPTED_BYTES = 20 * 1024 * 1024;

/**
 * A plaintext stream message (header, node states, user state) may not make mlb buffer more than this. memberlist
 * has no such limit for plaintext streams (it parses as it reads); mlb uses the encrypted limit for both, so a
 * peer cannot make an unencrypted connection cost more memory than an encrypted one.
 */
export const STREAM_MAX_MESSAGE_BYTES = STREAM_MAX_ENCRYPTED_BYTES;

/**
 * Bytes all inbound streams together may buffer before their messages are complete (stream-budget.ts). Room for
 * one message of memberlist's largest size (STREAM_MAX_ENCRYPTED_BYTES) with small push/pulls beside it; peers
 * sending more at once than this lose their streams (counted as streamBudgetExceeded) instead of the node its
 * memory. A real cluster's push/pulls are kilobytes (a few hundred bytes per member).
 */
export const INBOUND_STREAM_BUDGET_BYTES = 24 * 1024 * 1024;

/**
 * Inbound streams open at once; more are closed as they arrive (counted as tooManyStreams). memberlist refuses a
 * push/pull beyond 128 pending ones (net.go maxPushPullRequests); mlb caps every stream at the same number, since
 * each one holds a descriptor and a reader until its deadline.
 */
export const INBOUND_STREAMS_MAX = 128;

/**
 * Decompressed size of one compress wrapper in a UDP packet. memberlist 0.2.2 has no cap (an LZW bomb of 64 KiB
 * expands to about 85 MB). A sender compresses one packet's worth of messages (UDP_BUFFER_SIZE, at most a 64 KiB
 * datagram), so 1 MiB is 16 datagrams of room and still a bound on what a bomb costs.
 */
export const PACKET_MAX_DECOMPRESSED_BYTES = 1024 * 1024;

/**
 * Decompressed size of a compressed stream message. Newest memberlist caps decompression at 40 MB
 * (docs/memberlist-wire.md section 5); mlb takes the same number.
 */
export const STREAM_MAX_DECOMPRESSED_BYTES = 40 * 1024 * 1024;

/**
 * Node states in one push/pull. memberlist 0.2.2 allocates `make([]pushNodeState, header.Nodes)` on the peer's
 * word (readRemoteState); mlb refuses a header above this before reading anything. Memberlist's own scale is
 * thousands of nodes (MetalLB: one per Kubernetes node, 5,000 at most in a supported cluster).
 */
export const PUSH_PULL_MAX_NODES = 10_000;

/**
 * Delegate user state in one push/pull. memberlist trusts UserStateLen up to the 20 MB stream limit when
 * encrypted and without bound when not; mlb's own user state (per-service health, the allocation table) is far
 * smaller, and 16 MiB still leaves room inside STREAM_MAX_MESSAGE_BYTES for the node states.
 */
export const USER_STATE_MAX_BYTES = 16 * 1024 * 1024;

/** A TCP user message (userMsgHeader.UserMsgLen) is bounded like user state. */
export const USER_MESSAGE_MAX_BYTES = USER_STATE_MAX_BYTES;

/**
 * msgpack nesting depth. memberlist's structs are flat maps (depth 1, 2 with an array of bytes); unknown keys may
 * carry nested values, which mlb skips up to this depth.
 */
export const MSGPACK_MAX_DEPTH = 16;

/**
 * Entries in one msgpack map or array. The largest legitimate container is a byte field written as an array of
 * small integers (Go accepts that), bounded by the Meta limit; a map has a handful of keys.
 */
export const MSGPACK_MAX_CONTAINER_ENTRIES = 65_536;
