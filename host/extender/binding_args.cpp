#include "extender/binding_args.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace hami::extender {

ExtenderBindingArgs decode_binding_args(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    throw DecodeError("invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject())
    throw_value_type_error(doc, "v1.ExtenderBindingArgs");
  ExtenderBindingArgs args;
  for (const auto& m : doc.GetObject()) {
    if (go_field_is(m.name, "PodName")) {
      args.pod_name = go_string_field(m.value, "ExtenderBindingArgs.PodName");
    } else if (go_field_is(m.name, "PodNamespace")) {
      args.pod_namespace = go_string_field(m.value, "ExtenderBindingArgs.PodNamespace");
    } else if (go_field_is(m.name, "PodUID")) {
      args.pod_uid = go_string_field(m.value, "ExtenderBindingArgs.PodUID");
    } else if (go_field_is(m.name, "Node")) {
      args.node = go_string_field(m.value, "ExtenderBindingArgs.Node");
    }
  }
  return args;
}

}  // namespace hami::extender
