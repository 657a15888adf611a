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
#include <napi.h>
#include <uv.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

// Datagrams read per readable event; uv_poll is level-triggered, so the rest wake the loop on its next turn.
constexpr int kDatagramsPerWakeup = 64;
// BFD Control packets are at most 255 octets (one-octet Length); a larger datagram is still read whole.
constexpr size_t kDatagramBufferBytes = 2048;
// Room for one IP_TTL or IPV6_HOPLIMIT control message (an int each), with slack.
constexpr size_t kControlBufferBytes = 128;

Napi::Error SystemError(Napi::Env env, int err, const char* syscall, const std::string& what) {
  const char* name = uv_err_name(-err);
  std::string message = what + ": " + syscall + " " + name + " (" + std::strerror(err) + ")";
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("errno", Napi::Number::New(env, err));
  error.Set("code", Napi::String::New(env, name));
  error.Set("syscall", Napi::String::New(env, syscall));
  return error;
}

[[noreturn]] void ThrowTypeError(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

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
    if (!info[0].IsString()) ThrowTypeError(env, "address must be a string");
    if (!info[1].IsNumber()) ThrowTypeError(env, "port must be a number");
    double port = info[1].As<Napi::Number>().DoubleValue();
    if (!(port >= 0 && port <= 65535) || port != static_cast<double>(static_cast<int>(port))) {
      ThrowTypeError(env, "port must be an integer from 0 to 65535");
    }
    if (!info[2].IsFunction() || !info[3].IsFunction()) ThrowTypeError(env, "onMessage and onError must be functions");
    std::string address = info[0].As<Napi::String>().Utf8Value();

    sockaddr_storage local{};
    socklen_t localLength = 0;
    auto* v4 = reinterpret_cast<sockaddr_in*>(&local);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&local);
    if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
      family_ = AF_INET;
      v4->sin_family = AF_INET;
      v4->sin_port = htons(static_cast<uint16_t>(port));
      localLength = sizeof *v4;
    } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
      family_ = AF_INET6;
      v6->sin6_family = AF_INET6;
      v6->sin6_port = htons(static_cast<uint16_t>(port));
      localLength = sizeof *v6;
    } else {
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
      poll_ = new uv_poll_t;
      uv_loop_t* loop = nullptr;
      if (napi_get_uv_event_loop(env, &loop) != napi_ok) throw Napi::Error::New(env, "no event loop");
      int rc = uv_poll_init(loop, poll_, fd_);
      if (rc < 0) {
        delete poll_;
        poll_ = nullptr;
        throw SystemError(env, -rc, "uv_poll_init", "cannot watch the UDP socket");
      }
      poll_->data = this;
      rc = uv_poll_start(poll_, UV_READABLE, &UdpTtlSocket::OnPoll);
      if (rc < 0) throw SystemError(env, -rc, "uv_poll_start", "cannot watch the UDP socket");
    } catch (...) {
      Release();
      throw;
    }
    Ref();  // alive while the poll handle may call back, as a dgram socket is
  }

  ~UdpTtlSocket() override { Release(); }

 private:
  void Release() {
    if (poll_ != nullptr) {
      uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
      poll_ = nullptr;
    }
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }

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

  void RefHandle(const Napi::CallbackInfo&) {
    if (poll_ != nullptr) uv_ref(reinterpret_cast<uv_handle_t*>(poll_));
  }
  void UnrefHandle(const Napi::CallbackInfo&) {
    if (poll_ != nullptr) uv_unref(reinterpret_cast<uv_handle_t*>(poll_));
  }

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
    Napi::Env env = self->Env();
    Napi::HandleScope scope(env);
    Napi::Object keep = self->Value();  // alive until this callback returns, even if onMessage closes the socket
    (void)keep;
    Napi::CallbackScope callbackScope(env, *self->context_);
    if (status < 0) {
      // A pending socket error (an ICMP error queued on the socket): read it (SO_ERROR clears it), watch again.
      int pending = 0;
      socklen_t length = sizeof pending;
      if (self->fd_ >= 0 && getsockopt(self->fd_, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 && pending != 0) {
        uv_poll_start(handle, UV_READABLE, &UdpTtlSocket::OnPoll);
        self->Report(SystemError(env, pending, "recvmsg", "cannot receive on the UDP socket"));
        return;
      }
      uv_poll_stop(handle);
      self->Report(SystemError(env, -status, "poll", "the UDP socket's poll handle failed; it receives no more"));
      return;
    }
    self->Drain(env);
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
      try {
        onMessage_.Call({Napi::Buffer<uint8_t>::Copy(env, buffer_, static_cast<size_t>(n)), Napi::String::New(env, text),
                         Napi::Number::New(env, port), Napi::Number::New(env, ttl)});
      } catch (const Napi::Error& e) {
        napi_fatal_exception(env, e.Value());  // as an exception in any event callback: process 'uncaughtException'
        return;
      }
    }
  }

  void Report(const Napi::Error& error) {
    if (onError_.IsEmpty()) return;
    try {
      onError_.Call({error.Value()});
    } catch (const Napi::Error& e) {
      napi_fatal_exception(Env(), e.Value());
    }
  }

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
