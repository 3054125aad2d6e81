// resourceVersions as numbers. The API server only promises opaque values,
// but those it hands out are etcd revisions (decimal integers, store-wide),
// and both backends compare or count them as such when they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hami::cluster {

// The revision a resourceVersion spells; nullopt when it is not a decimal
// integer (empty, opaque, or out of range).
std::optional<uint64_t> revision_of(std::string_view resource_version);

}  // namespace hami::cluster
