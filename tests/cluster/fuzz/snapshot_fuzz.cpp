// Fuzz target: any bytes as a `file` backend snapshot (JSON or YAML). The
// only acceptable failure is a SnapshotError. Whatever loads is stored in
// its normal form: the store's own dump loads again, into the same dump up
// to the last bit of a double (RapidJSON's default number parsing may read
// a 17-digit double one unit in the last place off).
#include <rapidjson/document.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cluster/file_cluster.hpp"

using hami::cluster::FileClusterState;
using hami::cluster::SnapshotError;

namespace {

bool same_number(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.IsInt64() && b.IsInt64())
    return a.GetInt64() == b.GetInt64();
  if (a.IsUint64() && b.IsUint64())
    return a.GetUint64() == b.GetUint64();
  const double x = a.GetDouble();
  const double y = b.GetDouble();
  // Relative to the larger, and absolute among denormals (a few units of
  // 4.9e-324 apart).
  return x == y || std::fabs(x - y) <= 1e-15 * std::fmax(std::fabs(x), std::fabs(y)) ||
         (std::fabs(x) < 1e-300 && std::fabs(y) < 1e-300);
}

bool same(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.IsNumber() && b.IsNumber())
    return same_number(a, b);
  if (a.GetType() != b.GetType())
    return false;
  if (a.IsArray()) {
    if (a.Size() != b.Size())
      return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      if (!same(a[i], b[i]))
        return false;
    }
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount())
      return false;
    for (auto i = a.MemberBegin(), j = b.MemberBegin(); i != a.MemberEnd(); ++i, ++j) {
      if (i->name != j->name || !same(i->value, j->value))
        return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<FileClusterState> state;
  try {
    state = FileClusterState::from_text(text, "fuzz");
  } catch (const SnapshotError&) {
    return 0;
  }
  const std::string dump = state->to_json();
  std::unique_ptr<FileClusterState> again;
  try {
    again = FileClusterState::from_text(dump, "dump");
  } catch (const SnapshotError&) {
    __builtin_trap();
  }
  const std::string second = again->to_json();
  if (second == dump)
    return 0;
  rapidjson::Document a;
  rapidjson::Document b;
  a.Parse(dump.data(), dump.size());
  b.Parse(second.data(), second.size());
  if (a.HasParseError() || b.HasParseError() || !same(a, b))
    __builtin_trap();
  return 0;
}
