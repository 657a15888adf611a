// mlb_native: TCP sockets with RFC 2385 MD5 signatures, for BGP sessions with a password (BGPPeer.password).
//
// Why C++: the kernel needs the key (setsockopt TCP_MD5SIG) before the first segment, the SYN, leaves or arrives,
// so it must be set on the socket before connect(2), and on the listening socket before the peer's SYN. Node
// creates a net.Socket's file descriptor inside connect() and offers no hook in between. So this file only makes
// and prepares the descriptor; Node does all the I/O: the wrapper (tcp-md5.ts) hands the unconnected fd to
// `new net.Socket({ fd })` and calls socket.connect() (Node reuses the handle it already has), or passes a bound
// fd to server.listen({ fd }) (Node calls listen(2) itself).
//
//   tcpSocket(family: 4 | 6) -> fd                      nonblocking, close-on-exec, unconnected
//   tcpBind(fd, address: string, port: number, reuseAddress: boolean)
//   tcpSetMd5Key(fd, peerAddress: string, key: Buffer)  TCP_MD5SIG for one peer address; an empty key removes it.
//                                                       An IPv4 peer on an IPv6 socket is keyed by its mapped form
//                                                       (::ffff:a.b.c.d), as the kernel sees it there.
//
// Errors thrown carry `errno` (number), `code` (its name, "ENOENT") and `syscall`, like packet-socket.cc's.
#include "addon-support.h"

#include <netinet/tcp.h>

namespace {

// RFC 2385 leaves the key length open; Linux stores at most TCP_MD5SIG_MAXKEYLEN (80) bytes per peer.
constexpr size_t kMaxKeyBytes = TCP_MD5SIG_MAXKEYLEN;

using mlb::ParseAddress;
using mlb::StringArg;
using mlb::SystemError;
using mlb::ThrowTypeError;

int FdArg(const Napi::CallbackInfo& info, size_t i) {
  if (!info[i].IsNumber()) ThrowTypeError(info.Env(), "fd must be a number");
  int32_t fd = info[i].As<Napi::Number>().Int32Value();
  if (fd < 0) ThrowTypeError(info.Env(), "fd must not be negative");
  return fd;
}

int SocketFamily(Napi::Env env, int fd) {
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) < 0) {
    throw SystemError(env, errno, "getsockname", "cannot read the socket's address family");
  }
  return local.ss_family;
}

// tcpSocket(family: 4 | 6) -> fd
Napi::Value TcpSocket(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) ThrowTypeError(env, "family must be 4 or 6");
  int32_t family = info[0].As<Napi::Number>().Int32Value();
  if (family != 4 && family != 6) ThrowTypeError(env, "family must be 4 or 6");
  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw SystemError(env, errno, "socket", "cannot open a TCP socket");
  return Napi::Number::New(env, fd);
}

// tcpBind(fd, address, port, reuseAddress)
Napi::Value TcpBind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = FdArg(info, 0);
  std::string address = StringArg(info, 1, "address");
  if (!info[2].IsNumber()) ThrowTypeError(env, "port must be a number");
  int32_t port = info[2].As<Napi::Number>().Int32Value();
  if (port < 0 || port > 65535) ThrowTypeError(env, "port must be 0 to 65535");
  sockaddr_storage addr{};
  socklen_t length = 0;
  if (!ParseAddress(address, SocketFamily(env, fd), static_cast<uint16_t>(port), &addr, &length)) {
    ThrowTypeError(env, "cannot bind to \"" + address + "\": not a numeric address of the socket's family");
  }
  if (info[3].ToBoolean().Value()) {
    // As libuv does for its own listeners: a restarted daemon can listen again while old connections linger.
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) {
      throw SystemError(env, errno, "setsockopt", "cannot set SO_REUSEADDR");
    }
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), length) < 0) {
    throw SystemError(env, errno, "bind", "cannot bind to " + address + " port " + std::to_string(port));
  }
  return env.Undefined();
}

// tcpSetMd5Key(fd, peerAddress, key)
Napi::Value TcpSetMd5Key(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = FdArg(info, 0);
  std::string peer = StringArg(info, 1, "peerAddress");
  if (!info[2].IsBuffer()) ThrowTypeError(env, "key must be a Buffer");
  Napi::Buffer<uint8_t> key = info[2].As<Napi::Buffer<uint8_t>>();
  if (key.Length() > kMaxKeyBytes) {
    ThrowTypeError(env, "a TCP MD5 key has at most " + std::to_string(kMaxKeyBytes) + " bytes");
  }
  tcp_md5sig sig{};
  socklen_t length = 0;
  if (!ParseAddress(peer, SocketFamily(env, fd), 0, &sig.tcpm_addr, &length)) {
    ThrowTypeError(env, "cannot key \"" + peer + "\": not a numeric address of the socket's family");
  }
  sig.tcpm_keylen = static_cast<uint16_t>(key.Length());
  std::memcpy(sig.tcpm_key, key.Data(), key.Length());
  if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &sig, sizeof sig) < 0) {
    int err = errno;
    // Removing a key that was never set is not an error for the caller: the peer is unkeyed either way.
    if (err == ENOENT && key.Length() == 0) return env.Undefined();
    throw SystemError(env, err, "setsockopt", "cannot set the TCP MD5 key (TCP_MD5SIG) for " + peer);
  }
  return env.Undefined();
}

}  // namespace

namespace mlb {

// Called from the module's Init (packet-socket.cc): one addon file, several concepts.
void RegisterTcpMd5(Napi::Env env, Napi::Object exports) {
  exports.Set("tcpSocket", Napi::Function::New<TcpSocket>(env, "tcpSocket"));
  exports.Set("tcpBind", Napi::Function::New<TcpBind>(env, "tcpBind"));
  exports.Set("tcpSetMd5Key", Napi::Function::New<TcpSetMd5Key>(env, "tcpSetMd5Key"));
}

}  // namespace mlb
