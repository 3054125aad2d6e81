// Fuzz target: the ExtenderArgs decoder and the pod/node models it feeds.
// Any input must either decode or throw DecodeError / ObjectError — never
// crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extender/extender_codec.hpp"
#include "k8s/node.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    const hami::extender::ExtenderArgs args = hami::extender::decode_extender_args(body);
    if (args.pod != nullptr) {
      try {
        const hami::k8s::PodModel pod(*args.pod);
        (void)pod.view();
      } catch (const hami::k8s::ObjectError&) {
      }
    }
    for (const rapidjson::Value* item : args.node_items) {
      try {
        const hami::k8s::NodeModel node(*item);
        (void)node.view();
      } catch (const hami::k8s::ObjectError&) {
      }
    }
  } catch (const hami::extender::DecodeError&) {
  }
  try {
    (void)hami::extender::decode_binding_args(body);
  } catch (const hami::extender::DecodeError&) {
  }
  return 0;
}
