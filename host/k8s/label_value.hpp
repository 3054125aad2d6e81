// Kubernetes label values as the API server accepts them: at most 63
// characters, and empty or matching (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?
// (apimachinery IsValidLabelValue). A write carrying any other value is
// refused whole (422 Invalid).
#pragma once

#include <cstddef>
#include <string_view>

namespace hami::k8s {

inline constexpr size_t kLabelValueMaxLength = 63;

bool is_label_value(std::string_view value);

}  // namespace hami::k8s
