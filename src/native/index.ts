// src/native: the small C++ addon (packet-socket.cc, built by node-gyp into build/Release/mlb_native.node) for
// AF_PACKET sockets, which raw-socket cannot open, and its typed wrapper. Importing this never fails; opening a
// socket without the addon throws PacketSocketError('addonMissing').
export {
  openPacketSocket,
  macBytes,
  PACKET_PROTOCOLS,
  PACKET_TYPES,
  type AnswerStageTimes,
  type ArpAnswerTimes,
  type ArpFastPathStat,
  type FrameInfo,
  type PacketProtocol,
  type PacketSocket,
  type PacketSocketOptions,
  type PacketSocketStats,
  type PacketType,
} from './packet-socket';
export { acceptEthertypes, ACCEPT_WHOLE_FRAME, BPF_OPCODES, ETHERTYPE_OFFSET, type BpfInstruction } from './bpf-filter';
export { PacketSocketError, PACKET_SOCKET_ERROR_CODES, ADDON_MISSING_MESSAGE, type PacketSocketErrorCode } from './packet-socket-error';
export { nativeAddonStatus, type AddonStatus } from './native-addon';
