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
#include <napi.h>
#include <uv.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>

namespace {

// RFC 2385 leaves the key length open; Linux stores at most TCP_MD5SIG_MAXKEYLEN (80) bytes per peer.
constexpr size_t kMaxKeyBytes = TCP_MD5SIG_MAXKEYLEN;

Napi::Error TcpSystemError(Napi::Env env, int err, const char* syscall, const std::string& what) {
  const char* name = uv_err_name(-err);
  std::string message = what + ": " + syscall + " " + name + " (" + std::strerror(err) + ")";
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("errno", Napi::Number::New(env, err));
  error.Set("code", Napi::String::New(env, name));
  error.Set("syscall", Napi::String::New(env, syscall));
  return error;
}

[[noreturn]] void ThrowTcpTypeError(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

int FdArg(const Napi::CallbackInfo& info, size_t i) {
  if (!info[i].IsNumber()) ThrowTcpTypeError(info.Env(), "fd must be a number");
  int32_t fd = info[i].As<Napi::Number>().Int32Value();
  if (fd < 0) ThrowTcpTypeError(info.Env(), "fd must not be negative");
  return fd;
}

// Parses a numeric IPv4 or IPv6 address (no names: the caller resolves them) into a sockaddr for the socket's
// family. An IPv4 address for an IPv6 socket becomes its v4-mapped form.
bool ParseAddress(const std::string& text, int socketFamily, uint16_t port, sockaddr_storage* out, socklen_t* length) {
  std::memset(out, 0, sizeof *out);
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    if (socketFamily == AF_INET) {
      auto* sin = reinterpret_cast<sockaddr_in*>(out);
      sin->sin_family = AF_INET;
      sin->sin_port = htons(port);
      sin->sin_addr = v4;
      *length = sizeof *sin;
      return true;
    }
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(out);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    sin6->sin6_addr.s6_addr[10] = 0xff;
    sin6->sin6_addr.s6_addr[11] = 0xff;
    std::memcpy(&sin6->sin6_addr.s6_addr[12], &v4, 4);
    *length = sizeof *sin6;
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1 && socketFamily == AF_INET6) {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(out);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    sin6->sin6_addr = v6;
    *length = sizeof *sin6;
    return true;
  }
  return false;
}

int SocketFamily(Napi::Env env, int fd) {
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) < 0) {
    throw TcpSystemError(env, errno, "getsockname", "cannot read the socket's address family");
  }
  return local.ss_family;
}

std::string StringArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (!info[i].IsString()) ThrowTcpTypeError(info.Env(), std::string(what) + " must be a string");
  return info[i].As<Napi::String>().Utf8Value();
}

// tcpSocket(family: 4 | 6) -> fd
Napi::Value TcpSocket(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) ThrowTcpTypeError(env, "family must be 4 or 6");
  int32_t family = info[0].As<Napi::Number>().Int32Value();
  if (family != 4 && family != 6) ThrowTcpTypeError(env, "family must be 4 or 6");
  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw TcpSystemError(env, errno, "socket", "cannot open a TCP socket");
  return Napi::Number::New(env, fd);
}

// tcpBind(fd, address, port, reuseAddress)
Napi::Value TcpBind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = FdArg(info, 0);
  std::string address = StringArg(info, 1, "address");
  if (!info[2].IsNumber()) ThrowTcpTypeError(env, "port must be a number");
  int32_t port = info[2].As<Napi::Number>().Int32Value();
  if (port < 0 || port > 65535) ThrowTcpTypeError(env, "port must be 0 to 65535");
  sockaddr_storage addr{};
  socklen_t length = 0;
  if (!ParseAddress(address, SocketFamily(env, fd), static_cast<uint16_t>(port), &addr, &length)) {
    ThrowTcpTypeError(env, "cannot bind to \"" + address + "\": not a numeric address of the socket's family");
  }
  if (info[3].ToBoolean().Value()) {
    // As libuv does for its own listeners: a restarted daemon can listen again while old connections linger.
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) {
      throw TcpSystemError(env, errno, "setsockopt", "cannot set SO_REUSEADDR");
    }
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), length) < 0) {
    throw TcpSystemError(env, errno, "bind", "cannot bind to " + address + " port " + std::to_string(port));
  }
  return env.Undefined();
}

// tcpSetMd5Key(fd, peerAddress, key)
Napi::Value TcpSetMd5Key(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = FdArg(info, 0);
  std::string peer = StringArg(info, 1, "peerAddress");
  if (!info[2].IsBuffer()) ThrowTcpTypeError(env, "key must be a Buffer");
  Napi::Buffer<uint8_t> key = info[2].As<Napi::Buffer<uint8_t>>();
  if (key.Length() > kMaxKeyBytes) {
    ThrowTcpTypeError(env, "a TCP MD5 key has at most " + std::to_string(kMaxKeyBytes) + " bytes");
  }
  tcp_md5sig sig{};
  socklen_t length = 0;
  if (!ParseAddress(peer, SocketFamily(env, fd), 0, &sig.tcpm_addr, &length)) {
    ThrowTcpTypeError(env, "cannot key \"" + peer + "\": not a numeric address of the socket's family");
  }
  sig.tcpm_keylen = static_cast<uint16_t>(key.Length());
  std::memcpy(sig.tcpm_key, key.Data(), key.Length());
  if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &sig, sizeof sig) < 0) {
    int err = errno;
    // Removing a key that was never set is not an error for the caller: the peer is unkeyed either way.
    if (err == ENOENT && key.Length() == 0) return env.Undefined();
    throw TcpSystemError(env, err, "setsockopt", "cannot set the TCP MD5 key (TCP_MD5SIG) for " + peer);
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
