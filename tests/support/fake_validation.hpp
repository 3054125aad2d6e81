// Object validation the fake API server applies to creates, updates and
// patches, as the real one does in its registry (apimachinery
// ValidateLabels, k8s.io/apimachinery v0.37): metadata.labels keys must be
// qualified names and values valid label values.
#pragma once

#include <optional>

#include "fake_json.hpp"
#include "fake_kinds.hpp"

namespace hami::testing::fake {

// The 422 Invalid Status the API server answers for `object` (of `kind`),
// e.g. for a label value of 70 characters:
//   message  Pod "p" is invalid: metadata.labels: Invalid value: "<value>":
//            must be no more than 63 bytes
//   details  {"name":"p","kind":"Pod","causes":[{"reason":"FieldValueInvalid",
//            "message":"Invalid value: \"<value>\": must be no more than 63
//            bytes","field":"metadata.labels"}]}
// nullopt when every label is valid.
std::optional<Json> invalid_labels(const KindInfo& kind, const Json& object);

}  // namespace hami::testing::fake
