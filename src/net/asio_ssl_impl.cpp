// Asio's TLS code (asio::ssl), compiled once: see src/common/asio_impl.cpp. Here, in rmq_net, because
// it needs OpenSSL, which rmq_net links.
#include <asio/ssl/impl/src.hpp>
