// The ARP fast path's decision, pure: a received frame and the table (our MAC, the owned IPv4 addresses) in, the
// reply frame out, or nothing when the frame is left to JS. packet-socket.cc calls it for every received frame
// and sends what it returns; arpFastPathReply (arp-fast-path.cc) exposes it without a socket so that
// test/native/arp-fast-path-parity.test.ts can hold it to respondArp (src/announce/l2/arp-responder.ts), the one
// statement of which requests get a reply. Whatever this takes must be answered by respondArp with the same
// bytes; whatever it leaves goes to JS unchanged, so leaving a frame is always safe.
#ifndef MLB_ARP_FAST_PATH_H_
#define MLB_ARP_FAST_PATH_H_

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace mlb {

constexpr size_t kArpMacBytes = 6;
// Replies are padded to the Ethernet minimum (60 octets without FCS), as encodeArpFrame does.
constexpr size_t kArpReplyFrameBytes = 60;

struct ArpFastPathTable {
  uint8_t mac[kArpMacBytes] = {};
  std::unordered_set<uint32_t> ips;  // IPv4, host order
};

// True when the frame is a request this path answers; then `reply` holds the whole reply frame and `targetIp` the
// owned address it answers for. `pkttype` is the kernel's sll_pkttype for the frame (PACKET_HOST ...).
bool ArpFastPathReply(const uint8_t* frame, size_t length, int pkttype, const ArpFastPathTable& table,
                      uint8_t (&reply)[kArpReplyFrameBytes], uint32_t& targetIp);

// { mac: Buffer(6), ips: number[] } as setArpFastPath and arpFastPathReply take it; a TypeError prefixed `what`.
ArpFastPathTable ReadArpFastPathTable(Napi::Env env, const Napi::Value& config, const char* what);

// An array of IPv4 addresses as host-order uint32 numbers; a TypeError naming `what` otherwise.
std::vector<uint32_t> ReadIpv4List(Napi::Env env, const Napi::Value& value, const char* what);

// Adds arpFastPathReply(frame: Buffer, { mac, ips }, pkttype = PACKET_HOST) -> Buffer | null to the exports.
void RegisterArpFastPath(Napi::Env env, Napi::Object exports);

}  // namespace mlb

#endif  // MLB_ARP_FAST_PATH_H_
