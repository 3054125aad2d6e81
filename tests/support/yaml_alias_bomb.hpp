// YAML whose aliases expand to 10^9 strings: nine levels ("l1" … "l9"), each
// a list of ten aliases of the level below, under map keys after `prefix`
// (which must end a line). A few hundred bytes of text.
#pragma once

#include <string>

namespace hami::testing {

inline std::string yaml_alias_bomb(std::string prefix) {
  std::string yaml = std::move(prefix) + "l0: &l0 [xxxxxxxx]\n";
  for (int level = 1; level <= 9; ++level) {
    const std::string below = "*l" + std::to_string(level - 1);
    yaml += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [" + below;
    for (int i = 1; i < 10; ++i)
      yaml += ", " + below;
    yaml += "]\n";
  }
  return yaml;
}

}  // namespace hami::testing
