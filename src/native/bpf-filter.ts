/**
 * Classic BPF programs for SO_ATTACH_FILTER (linux/filter.h): the kernel drops a frame the program refuses before
 * it is queued on the socket, so a responder never wakes for traffic it would ignore.
 */

/** struct sock_filter. */
export interface BpfInstruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

/** The opcodes used here (class | size | mode, linux/bpf_common.h); append-only. */
export const BPF_OPCODES = {
  /** A <- the 16-bit big-endian word at absolute offset k. */
  ldhAbs: 0x28,
  /** A <- the byte at absolute offset k. */
  ldbAbs: 0x30,
  /** if (A == k) skip jt else skip jf. */
  jeqK: 0x15,
  /** Accept k bytes of the frame (0 drops it). */
  retK: 0x06,
} as const;

/** The byte offset of the ethertype in an untagged Ethernet frame. */
export const ETHERTYPE_OFFSET = 12;
/** `ret #k` with k this large keeps the whole frame. */
export const ACCEPT_WHOLE_FRAME = 0xffffffff;

/** Accepts frames whose ethertype is one of `ethertypes` (untagged Ethernet), drops the rest. */
export function acceptEthertypes(...ethertypes: number[]): BpfInstruction[] {
  if (ethertypes.length === 0 || ethertypes.length > 255) throw new RangeError('name 1 to 255 ethertypes');
  const n = ethertypes.length;
  const program: BpfInstruction[] = [{ code: BPF_OPCODES.ldhAbs, jt: 0, jf: 0, k: ETHERTYPE_OFFSET }];
  ethertypes.forEach((type, i) => {
    if (!Number.isInteger(type) || type < 0 || type > 0xffff) throw new RangeError(`ethertype ${type} is not 16 bits`);
    // Instruction i + 1; the accepting `ret` is instruction n + 2, the dropping one n + 1.
    program.push({ code: BPF_OPCODES.jeqK, jt: n - i, jf: 0, k: type });
  });
  program.push({ code: BPF_OPCODES.retK, jt: 0, jf: 0, k: 0 });
  program.push({ code: BPF_OPCODES.retK, jt: 0, jf: 0, k: ACCEPT_WHOLE_FRAME });
  return program;
}
