// The number of CPUs this process may run on: its affinity mask (taskset,
// a container's cpuset), not every CPU of the machine as
// std::thread::hardware_concurrency() reports. Threads sized by it do not
// outnumber the CPUs they can use and take turns on them.
#pragma once

#include <sched.h>

#include <thread>

namespace hami::platform {

inline unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0)
      return static_cast<unsigned>(count);
  }
  const unsigned all = std::thread::hardware_concurrency();
  return all > 0 ? all : 1;
}

}  // namespace hami::platform
