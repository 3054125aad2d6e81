#include "fake_patch.hpp"

namespace hami::testing::fake {

Json apply_merge_patch(Json target, const Json& patch) {
  target.merge_patch(patch);
  return target;
}

std::optional<Json> apply_json_patch(const Json& target, const Json& operations,
                                     std::string& error) {
  if (!operations.is_array()) {
    error = "json: cannot unmarshal object into Go value of type jsonpatch.Patch";
    return std::nullopt;
  }
  Json doc = target;
  for (const Json& op : operations) {
    const std::string kind = op.is_object() && op.contains("op") && op["op"].is_string()
                                 ? op["op"].get<std::string>()
                                 : std::string();
    const std::string path = op.is_object() && op.contains("path") && op["path"].is_string()
                                 ? op["path"].get<std::string>()
                                 : std::string();
    if (kind != "add" && kind != "remove" && kind != "replace" && kind != "move" &&
        kind != "copy" && kind != "test") {
      error = "Unexpected kind: " + kind;
      return std::nullopt;
    }
    try {
      // One operation at a time so a failure names the operation.
      doc = doc.patch(Json::array({op}));
    } catch (const nlohmann::json::exception&) {
      if (kind == "test") {
        error = "testing value " + path + " failed: test failed";
      } else {
        error = kind + " operation does not apply: doc is missing path: \"" + path +
                "\": missing value";
      }
      return std::nullopt;
    }
  }
  return doc;
}

}  // namespace hami::testing::fake
