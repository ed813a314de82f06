// Asio's TLS code (asio::ssl), compiled once: see src/common/asio_impl.cpp. Here, in rmq_net, because
// it needs OpenSSL, which rmq_net links.
#ifdef ASIO_SEPARATE_COMPILATION  // RMQ_ASIO_SEPARATE=ON; header-only asio otherwise
#include <asio/ssl/impl/src.hpp>
#endif
