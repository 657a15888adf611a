// The ARP fast path's matcher (arp-fast-path.h), and arpFastPathReply, its entry point without a socket.
//
//   arpFastPathReply(frame: Buffer, { mac: Buffer(6), ips: number[] }, pkttype = 0) -> Buffer | null
//       the reply the fast path would send for `frame`, received as `pkttype` (sll_pkttype, PACKET_HOST = 0), with
//       that table, or null when it leaves the frame to JS. For the parity test and diagnostics; sends nothing.
//
// The rules are respondArp's (src/announce/l2/arp-responder.ts), restricted to the frames whose answer needs no
// judgement from JS: a plain request for an owned address from another station. Every line that leaves a frame
// says which of respondArp's outcomes it leaves to JS.
#include "arp-fast-path.h"

#include "addon-support.h"

#include <linux/if_packet.h>

#include <cstring>
#include <string>

namespace mlb {

namespace {

constexpr size_t kEthernetHeaderBytes = 14;
// ARP for Ethernet/IPv4 (RFC 826): 8 fixed octets + 2 * (6 + 4), right after a 14-byte Ethernet II header.
constexpr size_t kArpFrameBytes = kEthernetHeaderBytes + 28;
constexpr uint16_t kEtherTypeArp = 0x0806;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kArpHardwareEthernet = 1;
constexpr uint8_t kArpIpv4Bytes = 4;
constexpr uint16_t kArpRequest = 1;
constexpr uint16_t kArpReply = 2;
// Offsets inside the ARP packet (RFC 826).
constexpr size_t kArpSenderMac = 8;
constexpr size_t kArpSenderIp = 14;
constexpr size_t kArpTargetMac = 18;
constexpr size_t kArpTargetIp = 24;
constexpr uint8_t kBroadcast[kArpMacBytes] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
// The I/G bit: set on group (multicast and broadcast) addresses (IEEE 802).
constexpr uint8_t kGroupBit = 0x01;

uint16_t ReadU16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t ReadU32(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | p[3];
}
void WriteU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v & 0xff);
}
bool SameMac(const uint8_t* a, const uint8_t* b) { return std::memcmp(a, b, kArpMacBytes) == 0; }

}  // namespace

bool ArpFastPathReply(const uint8_t* f, size_t n, int pkttype, const ArpFastPathTable& table,
                      uint8_t (&reply)[kArpReplyFrameBytes], uint32_t& targetIp) {
  // Received for another station: another MAC, or a VLAN with no device here, whose tag the kernel has already
  // taken off (so the frame looks like a plain broadcast). notForUs in JS; the kernel's arp_rcv ignores it too.
  if (pkttype == PACKET_OTHERHOST) return false;
  if (n < kArpFrameBytes) return false;                                   // truncated (or tagged and short): JS
  if (ReadU16(f + 12) != kEtherTypeArp) return false;                     // 802.1Q tag to echo, or not ARP: JS
  const uint8_t* arp = f + kEthernetHeaderBytes;
  if (ReadU16(arp) != kArpHardwareEthernet || ReadU16(arp + 2) != kEtherTypeIpv4 || arp[4] != kArpMacBytes ||
      arp[5] != kArpIpv4Bytes) {
    return false;                                                         // bad header: JS counts the drop
  }
  if (ReadU16(arp + 6) != kArpRequest) return false;                      // replies, unknown operations: JS
  if (SameMac(f + 6, table.mac)) return false;                            // from our own MAC: fromSelf in JS
  if (!SameMac(f, kBroadcast) && !SameMac(f, table.mac)) return false;    // notForUs in JS
  const uint8_t* senderMac = arp + kArpSenderMac;
  uint32_t senderIp = ReadU32(arp + kArpSenderIp);
  targetIp = ReadU32(arp + kArpTargetIp);
  if (senderMac[0] & kGroupBit) return false;                             // multicast sender: badSender in JS
  if (senderIp == targetIp) return false;                                 // announcement (or 0.0.0.0): JS decides
  if (table.ips.count(targetIp) == 0) return false;                       // notOwned: JS counts the drop
  if (table.ips.count(senderIp) != 0) return false;                       // another MAC claims an owned IP: JS
  if (SameMac(senderMac, table.mac)) return false;                        // our MAC as sender: JS

  std::memset(reply, 0, sizeof reply);
  std::memcpy(reply, senderMac, kArpMacBytes);                            // unicast to the requester
  std::memcpy(reply + 6, table.mac, kArpMacBytes);
  WriteU16(reply + 12, kEtherTypeArp);
  uint8_t* r = reply + kEthernetHeaderBytes;
  WriteU16(r, kArpHardwareEthernet);
  WriteU16(r + 2, kEtherTypeIpv4);
  r[4] = kArpMacBytes;
  r[5] = kArpIpv4Bytes;
  WriteU16(r + 6, kArpReply);
  std::memcpy(r + kArpSenderMac, table.mac, kArpMacBytes);                // sender: our MAC, the target IP
  std::memcpy(r + kArpSenderIp, arp + kArpTargetIp, 4);
  std::memcpy(r + kArpTargetMac, senderMac, kArpMacBytes);                // target: the requester (RFC 826 swap)
  std::memcpy(r + kArpTargetIp, arp + kArpSenderIp, 4);
  return true;
}

std::vector<uint32_t> ReadIpv4List(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsArray()) ThrowTypeError(env, std::string(what) + " must be an array of IPv4 addresses (uint32)");
  Napi::Array ips = value.As<Napi::Array>();
  std::vector<uint32_t> out;
  out.reserve(ips.Length());
  for (uint32_t i = 0; i < ips.Length(); i++) {
    Napi::Value v = ips.Get(i);
    double ip = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(ip >= 0 && ip <= 4294967295.0) || ip != static_cast<double>(static_cast<uint32_t>(ip))) {
      ThrowTypeError(env, std::string(what) + "[" + std::to_string(i) + "] must be an integer from 0 to 4294967295");
    }
    out.push_back(static_cast<uint32_t>(ip));
  }
  return out;
}

ArpFastPathTable ReadArpFastPathTable(Napi::Env env, const Napi::Value& value, const char* what) {
  const std::string prefix = std::string(what) + ": ";
  if (!value.IsObject()) ThrowTypeError(env, prefix + "takes { mac, ips }");
  Napi::Object config = value.As<Napi::Object>();
  Napi::Value mac = config.Get("mac");
  if (!mac.IsBuffer() || mac.As<Napi::Buffer<uint8_t>>().Length() != kArpMacBytes) {
    ThrowTypeError(env, prefix + "mac must be a 6-byte Buffer");
  }
  ArpFastPathTable table;
  for (uint32_t ip : ReadIpv4List(env, config.Get("ips"), (prefix + "ips").c_str())) table.ips.insert(ip);
  std::memcpy(table.mac, mac.As<Napi::Buffer<uint8_t>>().Data(), kArpMacBytes);
  return table;
}

namespace {

Napi::Value ArpFastPathReplyExport(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsBuffer()) ThrowTypeError(env, "arpFastPathReply takes a Buffer holding a whole Ethernet frame");
  Napi::Buffer<uint8_t> frame = info[0].As<Napi::Buffer<uint8_t>>();
  ArpFastPathTable table = ReadArpFastPathTable(env, info[1], "arpFastPathReply");
  int pkttype = info[2].IsUndefined() ? PACKET_HOST : static_cast<int>(UintArg(info, 2, "pkttype", 0xff));
  uint8_t reply[kArpReplyFrameBytes];
  uint32_t targetIp = 0;
  if (!ArpFastPathReply(frame.Data(), frame.Length(), pkttype, table, reply, targetIp)) return env.Null();
  return Napi::Buffer<uint8_t>::Copy(env, reply, sizeof reply);
}

}  // namespace

void RegisterArpFastPath(Napi::Env env, Napi::Object exports) {
  exports.Set("arpFastPathReply", Napi::Function::New<ArpFastPathReplyExport>(env, "arpFastPathReply"));
}

}  // namespace mlb
