# The native addon (src/native): AF_PACKET sockets and TCP sockets keyed for RFC 2385 MD5 (tcp-md5.cc), built by
# node-gyp at `npm install` (package.json "install").
# C++17 with C++ exceptions: node-addon-api turns a pending JS exception into a C++ throw and back.
# mlb_udp_ttl (src/native/udp-ttl.cc) is a module of its own: a UDP socket that reports the received TTL, for BFD's
# single-hop check (RFC 5881 section 5); src/native/udp-ttl.ts loads it.
{
  "targets": [
    {
      "target_name": "mlb_native",
      "sources": ["src/native/packet-socket.cc", "src/native/arp-fast-path.cc", "src/native/arp-answer-thread.cc", "src/native/tcp-md5.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra"]
    },
    {
      "target_name": "mlb_udp_ttl",
      "sources": ["src/native/udp-ttl.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra"]
    }
  ]
}
