// Shared helpers of the ops tests: running an operator command as main()
// would, with the build's plugins and the repository's configs.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "ops/ops_command.hpp"

namespace hami::ops::test {

struct CommandRun {
  int code = -1;
  std::string out;
  std::string err;
};

inline CommandRun run_command(const std::string& name, const std::vector<std::string>& args) {
  CommandRun run;
  const OpsCommand* command = find_ops_command(name);
  if (command == nullptr)
    return run;
  std::ostringstream out, err;
  run.code = command->run(args, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

inline std::string source_path(const std::string& relative) {
  return std::string(HAMI_SOURCE_DIR) + "/" + relative;
}

inline std::string data_path(const std::string& name) {
  return std::string(HAMI_OPS_DATA) + "/" + name;
}

// --config, --plugin-dir and --cluster for one of the repository's demo
// configs ("dev" → config/dev.yaml on config/demo-cluster.yaml, "vendors").
inline std::vector<std::string> demo_args(const std::string& config, const std::string& cluster) {
  return {"--config", source_path("config/" + config + ".yaml"), "--plugin-dir", HAMI_PLUGIN_DIR,
          "--cluster=file:" + source_path("config/" + cluster + ".yaml")};
}

}  // namespace hami::ops::test
