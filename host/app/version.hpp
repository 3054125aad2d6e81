// The host's version, from the project version in CMakeLists.txt.
#pragma once

#include <string_view>

#include "hami/plugin.h"

namespace hami::app {

inline constexpr std::string_view kVersion = HAMI_VERSION;

}  // namespace hami::app
