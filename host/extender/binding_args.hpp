// The ExtenderBindingArgs body kube-scheduler sends to /bind:
//   {"PodName", "PodNamespace", "PodUID", "Node"}
#pragma once

#include <string>
#include <string_view>

#include "extender/go_json.hpp"

namespace hami::extender {

struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};

// Throws DecodeError.
ExtenderBindingArgs decode_binding_args(std::string_view body);

}  // namespace hami::extender
