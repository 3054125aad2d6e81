// The node registration of the example accelerator, as its (imaginary)
// node-side device plugin writes it into the node annotation
// example.com/node-vaccel-register:
//
//   <id>,<count>,<memory MiB>,<cores %>,<type>,<healthy 0|1>;...
//
// e.g. "VACC-0,10,16384,100,Example V1,1;VACC-1,10,16384,100,Example V1,1".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace example {

struct RegisteredDevice {
  std::string id;
  std::int32_t count = 0;
  std::int64_t memory_mib = 0;
  std::int32_t cores = 0;
  std::string type;
  bool healthy = false;
};

// Throws hami::Error(HAMI_INVALID_ARGUMENT) naming the record and field
// that is wrong; an empty value is an error too (a registration lists at
// least one device).
std::vector<RegisteredDevice> parse_registration(std::string_view value);

}  // namespace example
