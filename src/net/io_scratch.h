#pragma once
// The per-io-thread read buffer every connection of the thread reads into (remoting frames in
// tcp_connection_io.cpp, HTTP/2 bytes in src/grpc): an idle connection keeps no read buffer of its
// own, only the bytes of an incomplete frame. Valid until the thread's next read; never held
// across a co_await.
#include <cstddef>

namespace rmq::net {

constexpr size_t kScratchSize = 64 * 1024;
char* scratchBuffer();  // kScratchSize bytes, this thread's

}  // namespace rmq::net
