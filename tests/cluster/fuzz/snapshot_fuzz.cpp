// Fuzz target: any bytes as a `file` backend snapshot (JSON or YAML). The
// only acceptable failure is a SnapshotError. Whatever loads is stored in
// its normal form: the store's own dump loads again, into the same dump.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cluster/file_cluster.hpp"

using hami::cluster::FileClusterState;
using hami::cluster::SnapshotError;

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
  if (again->to_json() != dump)
    __builtin_trap();
  return 0;
}
