// probe.so: a small device plugin for the admission host's tests. Its rules
// are simple enough to predict exactly, and its config can make it reject
// or crash on a chosen container, so the host services' handling of device
// plugins can be checked independently of the NVIDIA/AMD rules.
//
// Config (all optional):
//   resource       count resource (default "example.com/gpu")
//   memory         memory resource (default "example.com/mem")
//   cores          cores resource  (default "example.com/cores")
//   env            {"name":..,"value":..} added to every container
//   runtimeClass   set on pods with a container that uses the device
//   rejectContainer  container name: mutate fails INVALID_ARGUMENT
//   crashContainer   container name: mutate throws std::runtime_error
// Rules: a container uses the device when its limits hold `resource`; it
// then gets cores "100" unless it names cores. Requests: count, memory and
// cores read as plain integers from limits.
#include <rapidjson/document.h>

#include <charconv>
#include <hami/device.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using hami::to_str;
using hami::to_sv;

std::optional<std::string_view> limit(const hami_container_view& c, std::string_view key) {
  for (size_t i = 0; i < c.limits_len; ++i) {
    if (to_sv(c.limits[i].key) == key)
      return to_sv(c.limits[i].value);
  }
  return std::nullopt;
}

int64_t number(std::optional<std::string_view> text) {
  int64_t value = 0;
  if (text)
    std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

class Probe final : public hami::DevicePlugin {
 public:
  Probe(const hami_host_info& /*host*/, std::string_view config_json) {
    rapidjson::Document doc;
    doc.Parse(config_json.data(), config_json.size());
    if (!config_json.empty() && (doc.HasParseError() || !doc.IsObject())) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "probe config must be a JSON object");
    }
    if (!config_json.empty()) {
      const auto text = [&](const char* key, std::string& out) {
        if (doc.HasMember(key) && doc[key].IsString())
          out = doc[key].GetString();
      };
      text("resource", resource_);
      text("memory", memory_);
      text("cores", cores_);
      text("runtimeClass", runtime_class_);
      text("rejectContainer", reject_);
      text("crashContainer", crash_);
      text("requestCopy", request_copy_);
      text("podAnnotation", pod_annotation_);
      if (doc.HasMember("env") && doc["env"].IsObject()) {
        env_name_ = doc["env"]["name"].GetString();
        env_value_ = doc["env"]["value"].GetString();
      }
    }
  }

  void describe(hami_device_description& out) override {
    out.vendor = to_str("PROBE");
    out.count_resource = to_str(resource_);
    out.memory_resource = to_str(memory_);
    out.cores_resource = to_str(cores_);
    out.register_annotation = to_str("example.com/node-probe-register");
    out.to_allocate_annotation = to_str("example.com/probe-to-allocate");
    out.allocated_annotation = to_str("example.com/probe-allocated");
    out.memory_factor = 1;
  }

  bool mutate_container(const hami_pod_view& pod, size_t idx,
                        const hami_container_mutation_sink& out) override {
    const hami_container_view& c = pod.containers[idx];
    const std::string_view name = to_sv(c.name);
    if (!reject_.empty() && name == reject_) {
      throw hami::Error(HAMI_INVALID_ARGUMENT,
                        "container " + std::string(name) + " rejected by probe");
    }
    if (!crash_.empty() && name == crash_)
      throw std::runtime_error("probe crashed");
    const bool uses = limit(c, resource_).has_value();
    if (uses && !limit(c, cores_))
      out.set_limit(out.ctx, to_str(cores_), to_str("100"));
    if (!env_name_.empty())
      out.add_env(out.ctx, to_str(env_name_), to_str(env_value_));
    if (uses && !runtime_class_.empty())
      out.set_runtime_class(out.ctx, to_str(runtime_class_));
    // ABI 1.1: the count mirrored into requests, and a pod annotation
    // naming the container.
    if (uses && !request_copy_.empty())
      hami::set_request(out, request_copy_, *limit(c, resource_));
    if (uses && !pod_annotation_.empty())
      hami::set_pod_annotation(out, pod_annotation_, name);
    return uses;
  }

  hami_device_request container_request(const hami_pod_view& pod, size_t idx) override {
    const hami_container_view& c = pod.containers[idx];
    hami_device_request r{};
    r.struct_size = sizeof r;
    r.count = static_cast<int32_t>(number(limit(c, resource_)));
    if (r.count > 0) {
      r.memory_mib = number(limit(c, memory_));
      r.cores = static_cast<int32_t>(number(limit(c, cores_)));
    }
    return r;
  }

  void decode_node(const hami_node_view& /*node*/, const hami_device_sink& /*out*/) override {
    throw hami::Error(HAMI_NOT_FOUND, "probe registers no nodes");
  }

  hami_health_result node_health(const hami_node_view& /*node*/, int64_t /*now*/,
                                 const hami_annotation_sink& /*writes*/) override {
    hami_health_result r{};
    r.struct_size = sizeof r;
    r.healthy = 1;
    return r;
  }

  void fit(const hami_fit_input& /*in*/, hami_fit_output& out) override {
    out.fits = 0;
    out.picks_len = 0;
    hami::sink_append(out.reason, "probe never fits");
  }

  void encode_allocation(std::span<const hami_container_alloc> /*containers*/,
                         const hami_sink& /*out*/) override {}

  void decode_allocation(std::string_view /*value*/, const hami_allocation_sink& /*out*/) override {
  }

 private:
  std::string resource_ = "example.com/gpu";
  std::string memory_ = "example.com/mem";
  std::string cores_ = "example.com/cores";
  std::string runtime_class_;
  std::string reject_;
  std::string crash_;
  std::string request_copy_;
  std::string pod_annotation_;
  std::string env_name_;
  std::string env_value_;
};

}  // namespace

HAMI_EXPORT_DEVICE_PLUGIN(Probe, "probe", "1.0.0", "admission test device plugin", "", 0)
