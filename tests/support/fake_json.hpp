// JSON representation used inside the fake API server. Member order is kept
// as written so objects come back the way they were stored.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hami::testing::fake {

using Json = nlohmann::ordered_json;

// The string at metadata.<field> ("" when absent or not a string).
std::string meta_string(const Json& object, std::string_view field);

// Value of a dotted field ("spec.nodeName") as a field selector compares
// it: strings as is, booleans "true"/"false", absent as "".
std::string field_value(const Json& object, std::string_view dotted);

// The object's metadata, created as an empty object when missing.
Json& metadata(Json& object);

}  // namespace hami::testing::fake
