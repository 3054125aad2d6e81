// Fuzz target: the POST /refit request decoder. Any input must either decode
// or throw DecodeError — never crash, hang or read out of bounds — and a
// decoded request written back as JSON must decode to the same request.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "extender/go_json.hpp"
#include "extender/refit_route.hpp"

namespace {

std::string written(const hami::scheduling::RefitRequest& r) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto string = [&w](const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  };
  w.StartObject();
  string("podUID", r.pod_uid);
  string("podNamespace", r.pod_namespace);
  string("podName", r.pod_name);
  string("nodeName", r.node_name);
  w.Key("containerIndex");
  w.Int64(r.container_index);
  string("containerName", r.container_name);
  string("deviceType", r.device_type);
  w.Key("allowedDeviceUUIDs");
  w.StartArray();
  for (const std::string& id : r.allowed_device_uuids)
    w.String(id.data(), static_cast<rapidjson::SizeType>(id.size()));
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

bool same(const hami::scheduling::RefitRequest& a, const hami::scheduling::RefitRequest& b) {
  return a.pod_uid == b.pod_uid && a.pod_namespace == b.pod_namespace && a.pod_name == b.pod_name &&
         a.node_name == b.node_name && a.container_index == b.container_index &&
         a.container_name == b.container_name && a.device_type == b.device_type &&
         a.allowed_device_uuids == b.allowed_device_uuids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  hami::scheduling::RefitRequest request;
  try {
    request = hami::extender::decode_refit_request(body);
  } catch (const hami::extender::DecodeError&) {
    return 0;
  }
  const hami::scheduling::RefitRequest again =
      hami::extender::decode_refit_request(written(request));
  if (!same(request, again))
    std::abort();
  (void)hami::extender::encode_refit_result({false, "", request.pod_name});
  return 0;
}
