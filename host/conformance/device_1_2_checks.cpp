// The members ABI 1.2 appended to the device contract (device.h "Since
// 1.2"), checked for plugins that report minor >= 2: a vendor's own node
// lock names an annotation the host can write and a positive expiry; a
// score_placement scores an empty placement with a finite number and
// refuses a NULL input with a status rather than a crash.
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>

#include "conformance/check_context.hpp"
#include "conformance/device_instance.hpp"

namespace hami::conformance {
namespace {

bool has_score_placement(const hami_device_vtable& vt) {
  return vt.struct_size >= offsetof(hami_device_vtable, score_placement) + sizeof(void*) &&
         vt.score_placement != nullptr;
}

// A Kubernetes annotation key: [prefix/]name, the name 1..63 characters of
// [A-Za-z0-9._-] starting and ending alphanumeric, the prefix a DNS
// subdomain of at most 253 characters (checked here for its characters).
bool valid_annotation_key(const std::string& key) {
  const auto alnum = [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
  };
  const size_t slash = key.find('/');
  const std::string prefix = slash == std::string::npos ? "" : key.substr(0, slash);
  const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
  if (name.empty() || name.size() > 63 || !alnum(name.front()) || !alnum(name.back()))
    return false;
  for (const char ch : name) {
    if (!alnum(ch) && ch != '.' && ch != '_' && ch != '-')
      return false;
  }
  if (slash == std::string::npos)
    return true;
  if (prefix.empty() || prefix.size() > 253)
    return false;
  for (const char ch : prefix) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-'))
      return false;
  }
  return true;
}

void check_own_lock(const hami_device_description& d, CheckContext& c) {
  if (d.node_lock != HAMI_NODE_LOCK_OWN)
    return;
  const std::string key = PluginUnderTest::text(d.own_lock_annotation);
  c.expect(valid_annotation_key(key),
           "describe: node_lock HAMI_NODE_LOCK_OWN with "
           "own_lock_annotation '" +
               key + "', which is not a valid annotation key");
  c.expect(d.own_lock_expiry_seconds > 0, "describe: own_lock_expiry_seconds " +
                                              std::to_string(d.own_lock_expiry_seconds) +
                                              " is not positive");
}

void check_score_placement(const hami_device_vtable& vt, hami_instance* instance, CheckContext& c) {
  if (!has_score_placement(vt))
    return;
  hami_container_view container{};
  container.struct_size = sizeof container;
  container.name = hami_str{"main", 4};
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  pod.namespace_ = hami_str{"default", 7};
  pod.name = hami_str{"conformance", 11};
  pod.containers = &container;
  pod.containers_len = 1;
  const hami_placed_container empty{nullptr, 0};
  hami_placement_score_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.node_name = hami_str{"node-1", 6};
  in.node_policy = hami_str{"binpack", 7};
  in.containers = &empty;
  in.containers_len = 1;
  hami_placement_score out{};
  out.struct_size = sizeof out;
  char err[1024] = {};
  const hami_status s = vt.score_placement(instance, &in, &out, hami_errbuf{err, sizeof err});
  if (c.expect(s == HAMI_OK,
               "score_placement of an empty placement failed: " + status_name(s) + " " + err)) {
    c.expect(std::isfinite(out.score), "score_placement of an empty placement is not finite");
  }
  char err2[1024] = {};
  hami_placement_score ignored{};
  ignored.struct_size = sizeof ignored;
  const hami_status null_in =
      vt.score_placement(instance, nullptr, &ignored, hami_errbuf{err2, sizeof err2});
  c.expect(null_in != HAMI_OK, "score_placement accepted a NULL input");
}

void device_abi_1_2(const PluginUnderTest& p, CheckContext& c) {
  std::optional<DeviceInstance> inst;
  hami_device_description d{};
  if (!describe_for_minor(p, c, 2, inst, d))
    return;
  const hami_device_vtable& vt = p.vtable<hami_device_vtable>();
  check_own_lock(d, c);
  check_score_placement(vt, inst->get(), c);
}

const Check kDevice12[] = {
    {"device-abi-1-2",
     "the 1.2 members are valid: an own node lock's annotation and expiry, score_placement "
     "(minor >= 2)",
     HAMI_KIND_DEVICE, &device_abi_1_2},
};

}  // namespace

std::span<const Check> device_1_2_checks() {
  return kDevice12;
}

}  // namespace hami::conformance
