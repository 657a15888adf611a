// mlb_native: AF_PACKET sockets for Node, the one thing raw-socket cannot open (man 7 packet).
//
// One concept: a packet socket bound to one interface and one ethertype, nonblocking, watched by a uv_poll handle
// on Node's own event loop (no thread per socket, no blocking call on the main thread). Whole Ethernet frames go
// out with sendto(2) and come in through a JS callback, one call per frame.
//
//   open(ifindex, protocol, filter | undefined, receiveOutgoing, receiveBufferBytes, onFrame, onError) -> socket
//   socket.send(frame: Buffer) -> boolean          false: the kernel's queue is full, the frame was not sent
//   socket.addMembership(mac: Buffer) / dropMembership(mac: Buffer)     PACKET_MR_MULTICAST on the bound interface
//   socket.ref() / unref() / close()
//   socket.setArpFastPath({ mac: Buffer(6), ips: number[] } | null)   answer ARP requests for these IPv4 addresses
//                                                   (host-order uint32) in C++, without calling onFrame; null: off.
//                                                   The answers come from a thread of their own (arp-answer-thread.h),
//                                                   so a busy event loop does not delay them.
//   socket.changeArpFastPath(add: number[], remove: number[])   edits the table in place (the fast path must be on)
//   socket.fastPathStats() -> { ip, requests, replies, sendFailures }[]    cumulative, per IP, since open
//   socket.fastPathTimes() -> { boundsSeconds, queued, answering }   the answer thread's times (arp-answer-times.h):
//                                                   each stage { counts (per bucket, the last unbounded), sumSeconds }
//   arpFastPathReply(frame, { mac, ips }, pkttype?) -> Buffer | null   the fast path's answer, no socket (arp-fast-path.cc)
//   ifNameToIndex(name) -> number                   0 when there is no such interface in this network namespace
//
//   onFrame(frame: Buffer, pkttype: number, ifindex: number)    pkttype: PACKET_HOST .. PACKET_OUTGOING
//   onError(error)                                  asynchronous receive errors (ENETDOWN when the link goes down)
//
// Errors thrown or reported carry `errno` (number), `code` (its name, "EPERM") and `syscall`.
#include "addon-support.h"
#include "arp-answer-thread.h"
#include "arp-fast-path.h"

#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <memory>
#include <net/if.h>
#include <unordered_map>
#include <vector>

namespace mlb {
void RegisterTcpMd5(Napi::Env env, Napi::Object exports);
}

namespace {

// Frames handled per readable event. uv_poll is level-triggered, so frames left in the queue wake the loop again
// on its next turn: a burst cannot hold the event loop, and timers and setImmediate run between batches.
constexpr int kFramesPerWakeup = 256;
// Largest frame read. veth and other virtual links can hand a packet socket GRO-merged frames far above the MTU;
// anything longer is reported truncated by MSG_TRUNC and dropped.
constexpr size_t kReceiveBufferBytes = 65536;
// The kernel's own limit on a classic BPF program (BPF_MAXINSNS).
constexpr uint32_t kMaxFilterInstructions = 4096;
constexpr size_t kMacBytes = 6;
constexpr size_t kEthernetHeaderBytes = 14;

const char* kPermissionHint =
    "opening an AF_PACKET socket needs CAP_NET_RAW: run as root or grant it "
    "(setcap cap_net_raw+ep / systemd AmbientCapabilities=CAP_NET_RAW)";

using mlb::ThrowTypeError;
using mlb::UintArg;

// mlb::SystemError, but EPERM and EACCES say how to grant CAP_NET_RAW.
Napi::Error SystemError(Napi::Env env, int err, const char* syscall, const std::string& what) {
  if (err == EPERM || err == EACCES) {
    std::string hint = std::string(kPermissionHint) + " [" + syscall + " " + uv_err_name(-err) + "]";
    return mlb::SystemErrorWithMessage(env, err, syscall, hint);
  }
  return mlb::SystemError(env, err, syscall, what);
}

uint32_t FilterField(Napi::Env env, const Napi::Object& insn, const char* field, uint32_t max, uint32_t index) {
  Napi::Value v = insn.Get(field);
  double value = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!(value >= 0 && value <= max) || value != static_cast<double>(static_cast<uint32_t>(value))) {
    ThrowTypeError(env, "filter[" + std::to_string(index) + "]." + field + " must be an integer from 0 to " +
                            std::to_string(max));
  }
  return static_cast<uint32_t>(value);
}

std::vector<sock_filter> ReadFilter(Napi::Env env, const Napi::Array& program) {
  uint32_t length = program.Length();
  if (length == 0 || length > kMaxFilterInstructions) {
    ThrowTypeError(env, "a BPF filter has 1 to " + std::to_string(kMaxFilterInstructions) + " instructions");
  }
  std::vector<sock_filter> code(length);
  for (uint32_t i = 0; i < length; i++) {
    Napi::Value item = program.Get(i);
    if (!item.IsObject()) ThrowTypeError(env, "filter[" + std::to_string(i) + "] must be {code, jt, jf, k}");
    Napi::Object insn = item.As<Napi::Object>();
    code[i].code = static_cast<uint16_t>(FilterField(env, insn, "code", 0xffff, i));
    code[i].jt = static_cast<uint8_t>(FilterField(env, insn, "jt", 0xff, i));
    code[i].jf = static_cast<uint8_t>(FilterField(env, insn, "jf", 0xff, i));
    code[i].k = FilterField(env, insn, "k", 0xffffffffu, i);
  }
  return code;
}

class PacketSocket : public Napi::ObjectWrap<PacketSocket> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "PacketSocket",
                       {InstanceMethod<&PacketSocket::Send>("send"),
                        InstanceMethod<&PacketSocket::AddMembership>("addMembership"),
                        InstanceMethod<&PacketSocket::DropMembership>("dropMembership"),
                        InstanceMethod<&PacketSocket::RefHandle>("ref"),
                        InstanceMethod<&PacketSocket::UnrefHandle>("unref"),
                        InstanceMethod<&PacketSocket::Close>("close"),
                        InstanceMethod<&PacketSocket::SetArpFastPath>("setArpFastPath"),
                        InstanceMethod<&PacketSocket::ChangeArpFastPath>("changeArpFastPath"),
                        InstanceMethod<&PacketSocket::FastPathStats>("fastPathStats"),
                        InstanceMethod<&PacketSocket::FastPathTimes>("fastPathTimes")});
  }

  // new PacketSocket(ifindex, protocol, filter, receiveOutgoing, receiveBufferBytes, onFrame, onError)
  explicit PacketSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PacketSocket>(info) {
    Napi::Env env = info.Env();
    ifindex_ = static_cast<int>(UintArg(info, 0, "ifindex", 0x7fffffff));
    if (ifindex_ == 0) ThrowTypeError(env, "ifindex must name one interface (not 0)");
    uint32_t protocol = UintArg(info, 1, "protocol", 0xffff);
    std::vector<sock_filter> filter;
    if (!info[2].IsUndefined() && !info[2].IsNull()) {
      if (!info[2].IsArray()) ThrowTypeError(env, "filter must be an array of {code, jt, jf, k}");
      filter = ReadFilter(env, info[2].As<Napi::Array>());
    }
    receiveOutgoing_ = info[3].ToBoolean().Value();
    uint32_t receiveBufferBytes = UintArg(info, 4, "receiveBufferBytes", 0x7fffffff);
    receiveBufferBytes_ = static_cast<int>(receiveBufferBytes);
    if (!info[5].IsFunction() || !info[6].IsFunction()) ThrowTypeError(env, "onFrame and onError must be functions");
    onFrame_ = Napi::Persistent(info[5].As<Napi::Function>());
    onError_ = Napi::Persistent(info[6].As<Napi::Function>());
    // No resource object: one would hold this socket strongly for as long as the context lives.
    context_ = std::make_unique<Napi::AsyncContext>(env, "mlb:PacketSocket");

    // Protocol 0 at first: the socket receives nothing until bind(2) names the interface and ethertype, so no frame
    // from another interface, or one the filter would refuse, is queued in between.
    fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw SystemError(env, errno, "socket", "cannot open an AF_PACKET socket");
    try {
      Configure(env, filter, receiveBufferBytes);
      sockaddr_ll addr{};
      addr.sll_family = AF_PACKET;
      addr.sll_protocol = htons(static_cast<uint16_t>(protocol));
      addr.sll_ifindex = ifindex_;
      if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
        throw SystemError(env, errno, "bind", "cannot bind the packet socket to interface " + std::to_string(ifindex_));
      }
      poll_ = mlb::WatchReadable(env, fd_, this, &PacketSocket::OnPoll, &SystemError, "cannot watch the packet socket");
    } catch (...) {
      Release();
      throw;
    }
    Ref();  // an open socket stays alive while its poll handle may call back, as a net.Socket does
  }

  ~PacketSocket() override { Release(); }

 private:
  void Configure(Napi::Env env, const std::vector<sock_filter>& filter, uint32_t receiveBufferBytes) {
    if (!filter.empty()) {
      sock_fprog program{static_cast<unsigned short>(filter.size()), const_cast<sock_filter*>(filter.data())};
      if (setsockopt(fd_, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) < 0) {
        throw SystemError(env, errno, "setsockopt", "the kernel refused the BPF filter (SO_ATTACH_FILTER)");
      }
    }
    if (!receiveOutgoing_) {
      // Our own sends never reach our own socket (Linux 4.20+); older kernels still get the pkttype check below.
      int one = 1;
      setsockopt(fd_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    }
    if (receiveBufferBytes > 0) {
      int bytes = static_cast<int>(receiveBufferBytes);
      // SO_RCVBUFFORCE passes net.core.rmem_max with CAP_NET_ADMIN; without it SO_RCVBUF is capped there.
      if (setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) < 0 &&
          setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) < 0) {
        throw SystemError(env, errno, "setsockopt", "cannot set the receive buffer (SO_RCVBUF)");
      }
    }
  }

  // Stops the answer thread, stops watching and closes the descriptor; the uv handle is freed by libuv once it has
  // closed.
  void Release() {
    answer_.reset();
    mlb::ReleasePolledFd(poll_, fd_);
  }

  void RequireOpen(Napi::Env env, const char* what) {
    if (fd_ < 0) {
      Napi::Error error = Napi::Error::New(env, std::string("cannot ") + what + ": the packet socket is closed");
      error.Set("code", Napi::String::New(env, "ECLOSED"));
      throw error;
    }
  }

  Napi::Value Send(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireOpen(env, "send");
    if (!info[0].IsBuffer()) ThrowTypeError(env, "send takes a Buffer holding a whole Ethernet frame");
    Napi::Buffer<uint8_t> frame = info[0].As<Napi::Buffer<uint8_t>>();
    if (frame.Length() < kEthernetHeaderBytes) ThrowTypeError(env, "a frame holds at least a 14-byte Ethernet header");
    sockaddr_ll to{};
    to.sll_family = AF_PACKET;
    to.sll_ifindex = ifindex_;
    std::memcpy(&to.sll_protocol, frame.Data() + 12, 2);  // the frame's own ethertype, already in network order
    to.sll_halen = kMacBytes;
    std::memcpy(to.sll_addr, frame.Data(), kMacBytes);
    ssize_t n;
    do {
      n = sendto(fd_, frame.Data(), frame.Length(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) return Napi::Boolean::New(env, false);
      throw SystemError(env, errno, "sendto", "cannot send a frame");
    }
    return Napi::Boolean::New(env, true);
  }

  void Membership(const Napi::CallbackInfo& info, int option, const char* what) {
    Napi::Env env = info.Env();
    RequireOpen(env, what);
    if (!info[0].IsBuffer() || info[0].As<Napi::Buffer<uint8_t>>().Length() != kMacBytes) {
      ThrowTypeError(env, std::string(what) + " takes a 6-byte MAC address");
    }
    packet_mreq request{};
    request.mr_ifindex = ifindex_;
    request.mr_type = PACKET_MR_MULTICAST;
    request.mr_alen = kMacBytes;
    std::memcpy(request.mr_address, info[0].As<Napi::Buffer<uint8_t>>().Data(), kMacBytes);
    if (setsockopt(fd_, SOL_PACKET, option, &request, sizeof request) < 0) {
      throw SystemError(env, errno, "setsockopt", std::string("cannot ") + what);
    }
  }

  void AddMembership(const Napi::CallbackInfo& info) { Membership(info, PACKET_ADD_MEMBERSHIP, "addMembership"); }
  void DropMembership(const Napi::CallbackInfo& info) { Membership(info, PACKET_DROP_MEMBERSHIP, "dropMembership"); }

  void RefHandle(const Napi::CallbackInfo&) { mlb::RefPoll(poll_); }
  void UnrefHandle(const Napi::CallbackInfo&) { mlb::UnrefPoll(poll_); }

  // Idempotent; safe inside onFrame (the drain stops after the current frame).
  void Close(const Napi::CallbackInfo&) {
    if (fd_ < 0) return;
    Release();  // closing the socket drops its multicast memberships too
    onFrame_.Reset();
    onError_.Reset();
    Unref();
  }

  // setArpFastPath({ mac, ips } | null): replaces the whole table; counters are kept (they are per IP, cumulative).
  // The answer thread starts with the first table and stops with null; if it cannot start, the event loop answers.
  void SetArpFastPath(const Napi::CallbackInfo& info) {
    if (info[0].IsNull() || info[0].IsUndefined()) {
      answer_.reset();
      std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
      shared_->on = false;
      shared_->table = mlb::ArpFastPathTable{};
      return;
    }
    mlb::ArpFastPathTable table = mlb::ReadArpFastPathTable(info.Env(), info[0], "setArpFastPath");
    {
      std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
      shared_->table = std::move(table);
      shared_->on = true;
    }
    if (!answer_ && fd_ >= 0) answer_ = mlb::ArpAnswerThread::Start(ifindex_, receiveBufferBytes_, shared_);
  }

  // changeArpFastPath(add, remove): one edit per owned address gained or lost, instead of a whole new table each
  // time (10,000 VIPs made every change a 10,000-entry copy).
  void ChangeArpFastPath(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::vector<uint32_t> add = mlb::ReadIpv4List(env, info[0], "changeArpFastPath: add");
    std::vector<uint32_t> remove = mlb::ReadIpv4List(env, info[1], "changeArpFastPath: remove");
    std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
    if (!shared_->on) ThrowTypeError(env, "changeArpFastPath: the fast path is off (setArpFastPath first)");
    for (uint32_t ip : remove) shared_->table.ips.erase(ip);
    for (uint32_t ip : add) shared_->table.ips.insert(ip);
  }

  Napi::Value FastPathStats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::unordered_map<uint32_t, mlb::ArpFastPathCounts> snapshot;
    {
      std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
      snapshot = shared_->counts;
    }
    Napi::Array out = Napi::Array::New(env, snapshot.size());
    uint32_t i = 0;
    for (const auto& [ip, counts] : snapshot) {
      Napi::Object entry = Napi::Object::New(env);
      entry.Set("ip", Napi::Number::New(env, ip));
      entry.Set("requests", Napi::Number::New(env, static_cast<double>(counts.requests)));
      entry.Set("replies", Napi::Number::New(env, static_cast<double>(counts.replies)));
      entry.Set("sendFailures", Napi::Number::New(env, static_cast<double>(counts.sendFailures)));
      out.Set(i++, entry);
    }
    return out;
  }

  Napi::Value FastPathTimes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    mlb::ArpAnswerTimes times;
    {
      std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
      times = shared_->times;
    }
    Napi::Array bounds = Napi::Array::New(env, mlb::kAnswerTimeBuckets - 1);
    for (size_t i = 0; i + 1 < mlb::kAnswerTimeBuckets; i++) bounds.Set(i, Napi::Number::New(env, mlb::kAnswerTimeBoundsNanos[i] / 1e9));
    Napi::Object out = Napi::Object::New(env);
    out.Set("boundsSeconds", bounds);
    out.Set("queued", StageObject(env, times.queued));
    out.Set("answering", StageObject(env, times.answering));
    return out;
  }

  static Napi::Object StageObject(Napi::Env env, const mlb::AnswerStageHistogram& stage) {
    Napi::Array counts = Napi::Array::New(env, mlb::kAnswerTimeBuckets);
    for (size_t i = 0; i < mlb::kAnswerTimeBuckets; i++) counts.Set(i, Napi::Number::New(env, static_cast<double>(stage.counts[i])));
    Napi::Object out = Napi::Object::New(env);
    out.Set("counts", counts);
    out.Set("sumSeconds", Napi::Number::New(env, static_cast<double>(stage.sumNanos) / 1e9));
    return out;
  }

  // The ARP fast path on the event loop: true when the frame is a request for an address in the table, so it is not
  // delivered to JS. While the answer thread runs, it has answered its own copy of the frame already; otherwise (it
  // could not start, or stopped) the answer goes out from here. Which frames it takes, and the reply, are
  // ArpFastPathReply's (arp-fast-path.cc), held to respondArp (arp-responder.ts) by the parity test.
  bool ArpFastPath(const uint8_t* f, size_t n, int pkttype) {
    uint8_t reply[mlb::kArpReplyFrameBytes];
    uint32_t targetIp = 0;
    {
      std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
      if (!shared_->on || !mlb::ArpFastPathReply(f, n, pkttype, shared_->table, reply, targetIp)) return false;
    }
    if (answer_ && answer_->running()) return true;
    mlb::SendArpReplyAndCount(fd_, ifindex_, reply, sizeof reply, targetIp, *shared_);
    return true;
  }

  static void OnPoll(uv_poll_t* handle, int status, int /*events*/) {
    auto* self = static_cast<PacketSocket*>(handle->data);
    // The object outlives the batch even if onFrame closes the socket; microtasks and nextTicks run once, after it.
    mlb::InPollCallback(self, *self->context_, [self, handle, status](Napi::Env env) {
      if (status < 0) {
        self->OnPollError(env, handle, status);
        return;
      }
      self->Drain(env);
    });
  }

  // libuv reports POLLERR as UV_EBADF and stops the handle. On a packet socket POLLERR means a pending socket error,
  // such as ENETDOWN when the bound link goes down: read it (SO_ERROR clears it), watch again, report it. The
  // socket receives again once the link is up. Anything else stops the socket's receiving for good.
  void OnPollError(Napi::Env env, uv_poll_t* handle, int status) {
    int pending = status == UV_EBADF ? mlb::TakePendingSocketError(fd_) : 0;
    if (pending != 0) {
      int rc = uv_poll_start(handle, UV_READABLE, &PacketSocket::OnPoll);
      Report(SystemError(env, pending, "recvfrom", "cannot receive on the packet socket"));
      if (rc < 0 && fd_ >= 0) Report(SystemError(env, -rc, "uv_poll_start", "cannot watch the packet socket again"));
      return;
    }
    uv_poll_stop(handle);
    Report(SystemError(env, -status, "poll", "the packet socket's poll handle failed; it receives no more"));
  }

  void Drain(Napi::Env env) {
    for (int i = 0; i < kFramesPerWakeup && fd_ >= 0; i++) {
      sockaddr_ll from{};
      socklen_t fromLength = sizeof from;
      ssize_t n = recvfrom(fd_, buffer_, sizeof buffer_, MSG_TRUNC, reinterpret_cast<sockaddr*>(&from), &fromLength);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        // ENETDOWN (the link went down) and the like: reported, and the socket stays open for when it comes back.
        Report(SystemError(env, errno, "recvfrom", "cannot receive on the packet socket"));
        return;
      }
      if (static_cast<size_t>(n) > sizeof buffer_) continue;  // truncated: dropped, never half a frame
      if (from.sll_pkttype == PACKET_OUTGOING && !receiveOutgoing_) continue;
      if (ArpFastPath(buffer_, static_cast<size_t>(n), from.sll_pkttype)) continue;
      if (!mlb::CallFromEvent(env, onFrame_,
                              {Napi::Buffer<uint8_t>::Copy(env, buffer_, static_cast<size_t>(n)),
                               Napi::Number::New(env, from.sll_pkttype), Napi::Number::New(env, from.sll_ifindex)})) {
        return;
      }
    }
  }

  void Report(const Napi::Error& error) { mlb::ReportError(Env(), onError_, error); }

  int fd_ = -1;
  int ifindex_ = 0;
  bool receiveOutgoing_ = false;
  uv_poll_t* poll_ = nullptr;
  Napi::FunctionReference onFrame_;
  Napi::FunctionReference onError_;
  std::unique_ptr<Napi::AsyncContext> context_;
  int receiveBufferBytes_ = 0;
  std::shared_ptr<mlb::ArpFastPathShared> shared_ = std::make_shared<mlb::ArpFastPathShared>();
  std::unique_ptr<mlb::ArpAnswerThread> answer_;
  uint8_t buffer_[kReceiveBufferBytes];
};

Napi::Value IfNameToIndex(const Napi::CallbackInfo& info) {
  if (!info[0].IsString()) ThrowTypeError(info.Env(), "ifNameToIndex takes an interface name");
  std::string name = info[0].As<Napi::String>().Utf8Value();
  if (name.empty() || name.size() >= IF_NAMESIZE) return Napi::Number::New(info.Env(), 0);
  return Napi::Number::New(info.Env(), if_nametoindex(name.c_str()));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  mlb::RegisterTcpMd5(env, exports);  // tcp-md5.cc: TCP sockets keyed for RFC 2385
  mlb::RegisterArpFastPath(env, exports);  // arp-fast-path.cc: the fast path's matcher without a socket, for tests
  exports.Set("PacketSocket", PacketSocket::Define(env));
  exports.Set("ifNameToIndex", Napi::Function::New<IfNameToIndex>(env, "ifNameToIndex"));
  return exports;
}

}  // namespace

NODE_API_MODULE(mlb_native, Init)
