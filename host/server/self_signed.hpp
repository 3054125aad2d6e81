// A development identity made in memory at start-up: an EC P-256 key and a
// self-signed certificate for CN=localhost with subjectAltNames localhost,
// 127.0.0.1 and ::1, valid from an hour ago for 365 days. Nothing touches
// the disk; clients that want to verify fetch the certificate from the
// handshake (or the log's fingerprint).
#pragma once

#include "server/openssl_handles.hpp"

namespace hami::server {

struct SelfSignedIdentity {
  EvpPkeyPtr key;
  X509Ptr certificate;
};

// Throws std::runtime_error with OpenSSL's reason on failure.
SelfSignedIdentity generate_self_signed();

}  // namespace hami::server
