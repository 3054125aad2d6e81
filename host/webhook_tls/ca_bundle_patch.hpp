// The JSON Patch that sets the CA as clientConfig.caBundle of the webhooks
// of a MutatingWebhookConfiguration that call us: through our Service, or
// by a clientConfig.url whose host is one of the names the serving
// certificate carries (a webhook registered by URL, e.g. 127.0.0.1 for a
// host outside the cluster's Service network). A merge patch
// cannot address list items, so the patch names each webhook by index and
// starts with a `test` of metadata.resourceVersion: if the object changed
// since it was read (webhooks reordered, added), the API server refuses the
// patch and the caller reads again.
// Webhooks that call another Service or another host are left alone.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hami::webhook_tls {

// The reply is not a MutatingWebhookConfiguration object.
class WebhookConfigurationFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Who "us" is: the Service, and the certificate's names (DNS names and IP
// addresses as written in a URL, without brackets).
struct WebhookTarget {
  std::string_view service_namespace;
  std::string_view service_name;
  std::vector<std::string> url_hosts;
};

// The host of an https:// URL (brackets of an IPv6 literal removed; no
// port, path or user info); empty for any other URL.
std::string https_url_host(std::string_view url);

struct CaBundlePatch {
  size_t matched = 0;   // webhooks calling the target
  size_t outdated = 0;  // of those, the ones whose caBundle differs
  std::string json;     // the JSON Patch; empty when outdated == 0
};

// Throws WebhookConfigurationFormatError.
CaBundlePatch ca_bundle_patch(std::string_view configuration_json, const WebhookTarget& target,
                              std::string_view ca_pem);

}  // namespace hami::webhook_tls
