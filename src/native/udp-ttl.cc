// mlb_udp_ttl: a UDP receive socket that reports each datagram's IP TTL (IPv4) or Hop Limit (IPv6).
//
// Why: single-hop BFD (RFC 5881 section 5) must discard a Control packet whose received TTL / Hop Limit is not 255
// (the GTSM check, RFC 5082), and node's dgram sockets do not expose it: libuv reads datagrams without their
// ancillary data. This socket asks the kernel for it (IP_RECVTTL / IPV6_RECVHOPLIMIT) and reads it with
// recvmsg(2). One concept: a nonblocking UDP socket bound to one address and port, watched by a uv_poll handle on
// Node's own loop (no thread), one JS call per datagram.
//
//   new UdpTtlSocket(address: string, port: number, onMessage, onError)
//   socket.port() -> number          the bound port (useful with port 0)
//   socket.ref() / unref() / close()
//
//   onMessage(payload: Buffer, fromAddress: string, fromPort: number, ttl: number)   ttl -1: the kernel gave none
//   onError(error)                   asynchronous receive errors
//
// Errors thrown or reported carry `errno` (number), `code` (its name, "EADDRINUSE") and `syscall`.
#include "addon-support.h"

#include <memory>

namespace {

// Datagrams read per readable event; uv_poll is level-triggered, so the rest wake the loop on its next turn.
constexpr int kDatagramsPerWakeup = 64;
// BFD Control packets are at most 255 octets (one-octet Length); a larger datagram is still read whole.
constexpr size_t kDatagramBufferBytes = 2048;
// Room for one IP_TTL or IPV6_HOPLIMIT control message (an int each), with slack.
constexpr size_t kControlBufferBytes = 128;

using mlb::SystemError;
using mlb::ThrowTypeError;

class UdpTtlSocket : public Napi::ObjectWrap<UdpTtlSocket> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "UdpTtlSocket",
                       {InstanceMethod<&UdpTtlSocket::Port>("port"), InstanceMethod<&UdpTtlSocket::RefHandle>("ref"),
                        InstanceMethod<&UdpTtlSocket::UnrefHandle>("unref"),
                        InstanceMethod<&UdpTtlSocket::Close>("close")});
  }

  explicit UdpTtlSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<UdpTtlSocket>(info) {
    Napi::Env env = info.Env();
    std::string address = mlb::StringArg(info, 0, "address");
    uint32_t port = mlb::UintArg(info, 1, "port", 65535);
    if (!info[2].IsFunction() || !info[3].IsFunction()) ThrowTypeError(env, "onMessage and onError must be functions");

    sockaddr_storage local{};
    socklen_t localLength = 0;
    family_ = mlb::NumericAddressFamily(address);
    if (family_ == AF_UNSPEC || !mlb::ParseAddress(address, family_, static_cast<uint16_t>(port), &local, &localLength)) {
      ThrowTypeError(env, "not an IPv4 or IPv6 address: \"" + address + "\"");
    }
    onMessage_ = Napi::Persistent(info[2].As<Napi::Function>());
    onError_ = Napi::Persistent(info[3].As<Napi::Function>());
    context_ = std::make_unique<Napi::AsyncContext>(env, "mlb:UdpTtlSocket");

    fd_ = socket(family_, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw SystemError(env, errno, "socket", "cannot open a UDP socket");
    try {
      int one = 1;
      if (family_ == AF_INET) {
        if (setsockopt(fd_, IPPROTO_IP, IP_RECVTTL, &one, sizeof one) < 0) {
          throw SystemError(env, errno, "setsockopt", "cannot ask for the received TTL (IP_RECVTTL)");
        }
      } else {
        // An IPv6 socket bound to "::" would also take IPv4 traffic as mapped addresses, without IP_TTL.
        setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (setsockopt(fd_, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof one) < 0) {
          throw SystemError(env, errno, "setsockopt", "cannot ask for the received Hop Limit (IPV6_RECVHOPLIMIT)");
        }
      }
      if (bind(fd_, reinterpret_cast<sockaddr*>(&local), localLength) < 0) {
        throw SystemError(env, errno, "bind", "cannot bind UDP " + address + " port " + std::to_string(static_cast<int>(port)));
      }
      poll_ = mlb::WatchReadable(env, fd_, this, &UdpTtlSocket::OnPoll, &SystemError, "cannot watch the UDP socket");
    } catch (...) {
      Release();
      throw;
    }
    Ref();  // alive while the poll handle may call back, as a dgram socket is
  }

  ~UdpTtlSocket() override { Release(); }

 private:
  void Release() { mlb::ReleasePolledFd(poll_, fd_); }

  Napi::Value Port(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (fd_ < 0) return Napi::Number::New(env, -1);
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &length) < 0) {
      throw SystemError(env, errno, "getsockname", "cannot read the bound port");
    }
    uint16_t port = family_ == AF_INET ? reinterpret_cast<sockaddr_in*>(&local)->sin_port
                                       : reinterpret_cast<sockaddr_in6*>(&local)->sin6_port;
    return Napi::Number::New(env, ntohs(port));
  }

  void RefHandle(const Napi::CallbackInfo&) { mlb::RefPoll(poll_); }
  void UnrefHandle(const Napi::CallbackInfo&) { mlb::UnrefPoll(poll_); }

  // Idempotent; safe inside onMessage (the drain stops after the current datagram).
  void Close(const Napi::CallbackInfo&) {
    if (fd_ < 0) return;
    Release();
    onMessage_.Reset();
    onError_.Reset();
    Unref();
  }

  static void OnPoll(uv_poll_t* handle, int status, int /*events*/) {
    auto* self = static_cast<UdpTtlSocket*>(handle->data);
    mlb::InPollCallback(self, *self->context_, [self, handle, status](Napi::Env env) {
      if (status < 0) {
        // A pending socket error (an ICMP error queued on the socket): read it (SO_ERROR clears it), watch again.
        int pending = mlb::TakePendingSocketError(self->fd_);
        if (pending != 0) {
          uv_poll_start(handle, UV_READABLE, &UdpTtlSocket::OnPoll);
          self->Report(SystemError(env, pending, "recvmsg", "cannot receive on the UDP socket"));
          return;
        }
        uv_poll_stop(handle);
        self->Report(SystemError(env, -status, "poll", "the UDP socket's poll handle failed; it receives no more"));
        return;
      }
      self->Drain(env);
    });
  }

  void Drain(Napi::Env env) {
    for (int i = 0; i < kDatagramsPerWakeup && fd_ >= 0; i++) {
      sockaddr_storage from{};
      iovec iov{buffer_, sizeof buffer_};
      alignas(cmsghdr) uint8_t control[kControlBufferBytes];
      msghdr msg{};
      msg.msg_name = &from;
      msg.msg_namelen = sizeof from;
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      ssize_t n = recvmsg(fd_, &msg, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        Report(SystemError(env, errno, "recvmsg", "cannot receive on the UDP socket"));
        return;
      }
      if (msg.msg_flags & MSG_TRUNC) continue;  // larger than any BFD packet: dropped, never half a datagram
      int ttl = -1;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        bool isTtl = (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
                     (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT);
        if (isTtl && c->cmsg_len >= CMSG_LEN(sizeof(int))) std::memcpy(&ttl, CMSG_DATA(c), sizeof(int));
      }
      char text[INET6_ADDRSTRLEN] = {};
      int port = 0;
      if (from.ss_family == AF_INET) {
        auto* a = reinterpret_cast<sockaddr_in*>(&from);
        inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
        port = ntohs(a->sin_port);
      } else if (from.ss_family == AF_INET6) {
        auto* a = reinterpret_cast<sockaddr_in6*>(&from);
        inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
        port = ntohs(a->sin6_port);
      }
      if (!mlb::CallFromEvent(env, onMessage_,
                              {Napi::Buffer<uint8_t>::Copy(env, buffer_, static_cast<size_t>(n)),
                               Napi::String::New(env, text), Napi::Number::New(env, port), Napi::Number::New(env, ttl)})) {
        return;
      }
    }
  }

  void Report(const Napi::Error& error) { mlb::ReportError(Env(), onError_, error); }

  int fd_ = -1;
  int family_ = AF_INET;
  uv_poll_t* poll_ = nullptr;
  Napi::FunctionReference onMessage_;
  Napi::FunctionReference onError_;
  std::unique_ptr<Napi::AsyncContext> context_;
  uint8_t buffer_[kDatagramBufferBytes];
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("UdpTtlSocket", UdpTtlSocket::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(mlb_udp_ttl, Init)
