// The JSON Patch that sets the CA as clientConfig.caBundle of the webhooks
// of a MutatingWebhookConfiguration that call our Service. A merge patch
// cannot address list items, so the patch names each webhook by index and
// starts with a `test` of metadata.resourceVersion: if the object changed
// since it was read (webhooks reordered, added), the API server refuses the
// patch and the caller reads again.
// Webhooks that call a URL or another Service are left alone.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace hami::webhook_tls {

// The reply is not a MutatingWebhookConfiguration object.
class WebhookConfigurationFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CaBundlePatch {
  size_t matched = 0;   // webhooks calling service_namespace/service_name
  size_t outdated = 0;  // of those, the ones whose caBundle differs
  std::string json;     // the JSON Patch; empty when outdated == 0
};

// Throws WebhookConfigurationFormatError.
CaBundlePatch ca_bundle_patch(std::string_view configuration_json,
                              std::string_view service_namespace, std::string_view service_name,
                              std::string_view ca_pem);

}  // namespace hami::webhook_tls
