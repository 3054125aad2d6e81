// Fuzz target: API server replies as tls.selfManaged reads them — a Secret
// (parse_secret, updated_secret_json, then the bundle's PEMs through
// check_bundle) and a MutatingWebhookConfiguration (ca_bundle_patch). Each
// must succeed or throw its format error; never crash, hang or read out of
// bounds. An update must read back with the bundle written.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "webhook_tls/bundle_check.hpp"
#include "webhook_tls/ca_bundle_patch.hpp"
#include "webhook_tls/tls_secret.hpp"

namespace {

void check(bool ok) {
  if (!ok)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hami::webhook_tls;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    const StoredSecret s = parse_secret(input);
    (void)check_bundle(s.bundle, ServingNames{{"svc.ns.svc"}, {"127.0.0.1"}},
                       std::chrono::seconds(86400));
    const TlsBundle written{"c", "k", "a", ""};
    const StoredSecret back = parse_secret(updated_secret_json(input, written));
    check(back.bundle == written);
  } catch (const SecretFormatError&) {
  }
  try {
    const CaBundlePatch p =
        ca_bundle_patch(input, {"ns", "svc", {"127.0.0.1", "svc.ns.svc"}}, "CA");
    check(p.outdated <= p.matched && (p.outdated == 0) == p.json.empty());
  } catch (const WebhookConfigurationFormatError&) {
  }
  return 0;
}
