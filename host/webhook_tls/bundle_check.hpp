// Whether the bundle found in the Secret can be served, and if not, what
// must be made anew.
//   keep          the serving certificate and key match, it chains to the
//                 CA, carries exactly the configured names, is valid now
//                 and beyond `renew_before`;
//   reissue_leaf  the serving certificate cannot be kept but the CA can
//                 sign a new one: CA certificate and key parse and match, it
//                 is a CA, valid now and beyond `renew_before` (the
//                 caBundle stays the same);
//   new_ca        otherwise.
// `reason` says why, for the log: "serving certificate expires within 30
// days (notAfter 2025-06-01T00:00:00Z)", "serving certificate names differ:
// has [a, b], want [a, c]"...
#pragma once

#include <chrono>
#include <ctime>
#include <string>

#include "webhook_tls/tls_bundle.hpp"

namespace hami::webhook_tls {

enum class BundleAction { keep, reissue_leaf, new_ca };

struct BundleVerdict {
  BundleAction action = BundleAction::new_ca;
  std::string reason;  // empty for keep
};

BundleVerdict check_bundle(const TlsBundle& bundle, const ServingNames& names,
                           std::chrono::seconds renew_before, std::time_t now = std::time(nullptr));

// The subjectAltName entries of the first certificate of `cert_pem`, sorted
// (DNS names and IP addresses in inet_ntop form); empty when it does not
// parse.
ServingNames certificate_names(const std::string& cert_pem);

// Sorted and without duplicates; IP addresses in inet_ntop form (unparsable
// ones kept as written).
ServingNames normalized(ServingNames names);

}  // namespace hami::webhook_tls
