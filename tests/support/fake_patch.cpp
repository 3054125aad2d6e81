#include "fake_patch.hpp"

namespace hami::testing::fake {
namespace {

// `test` as the API server's patch library (evanphx/json-patch v4) judges
// it: the parent of the path must exist; a member the parent object lacks
// passes a test for null (and only that: a test for absence), anything else
// is compared by JSON equality.
bool test_holds(const Json& doc, const Json& op, const std::string& path, std::string& error) {
  const Json expected = op.contains("value") ? op["value"] : Json();
  const auto failed = [&] {
    error = "testing value " + path + " failed: test failed";
    return false;
  };
  try {
    const Json::json_pointer pointer(path);
    if (pointer.empty())
      return doc == expected || failed();
    const Json::json_pointer parent_pointer = pointer.parent_pointer();
    if (!doc.contains(parent_pointer) || !doc.at(parent_pointer).is_structured()) {
      error = "test operation does not apply: is missing path: " + path + ": missing value";
      return false;
    }
    const Json& parent = doc.at(parent_pointer);
    if (parent.is_object() && !parent.contains(pointer.back()))
      return expected.is_null() || failed();
    return doc.at(pointer) == expected || failed();
  } catch (const nlohmann::json::exception&) {
    return failed();
  }
}

}  // namespace

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
    if (kind == "test") {
      if (!test_holds(doc, op, path, error))
        return std::nullopt;
      continue;
    }
    try {
      // One operation at a time so a failure names the operation.
      doc = doc.patch(Json::array({op}));
    } catch (const nlohmann::json::exception&) {
      error =
          kind + " operation does not apply: doc is missing path: \"" + path + "\": missing value";
      return std::nullopt;
    }
  }
  return doc;
}

}  // namespace hami::testing::fake
