// Reading an operator command's input file (a workload, a pod) whole, with
// the operating system's reason when it cannot be read.
#pragma once

#include <string>
#include <string_view>

namespace hami::ops {

// The whole content of `path`. Throws OpsError
// "<path>: cannot open the <what>: <reason>" ("No such file or directory",
// "Permission denied", "Is a directory", ...), or "cannot read" when a
// read fails.
std::string read_input_file(const std::string& path, std::string_view what);

}  // namespace hami::ops
