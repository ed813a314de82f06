// Asio's non-template code, compiled once for the whole tree (ASIO_SEPARATE_COMPILATION, set for
// every target in CMakeLists.txt): the other translation units only declare it, so they neither
// parse nor compile the scheduler, reactor and socket operations again (issue 23 §3: ~20 % of the
// CPU of a compile that uses asio). In rmq_common, which every target links; an executable that
// uses no asio pulls nothing from it. The TLS part is in src/net/asio_ssl_impl.cpp (OpenSSL).
#ifdef ASIO_SEPARATE_COMPILATION  // RMQ_ASIO_SEPARATE=ON; header-only asio otherwise
#include <asio/impl/src.hpp>
#endif
