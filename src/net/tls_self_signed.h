#pragma once
// The test-mode certificate (tls.test.mode.enable without a certificate; Java's Netty
// SelfSignedCertificate): a fresh EC P-256 key and a self-signed X.509 certificate for
// CN=localhost, valid from a day ago for a year, made in memory at start-up (about a millisecond).
#include "common/result.h"

namespace rmq::net {

// Installs a new self-signed certificate and its key into `sslCtx` (an SSL_CTX*).
Result<void> useSelfSignedCertificate(void* sslCtx);

}  // namespace rmq::net
