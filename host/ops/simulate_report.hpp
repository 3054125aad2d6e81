// simulate's output: a text table (the policy pairs side by side) and the
// stable JSON documented in docs/simulate.md.
#pragma once

#include <string>

#include "ops/simulate_run.hpp"

namespace hami::ops {

// The table, then with `trace` one line per pod for each pair.
std::string simulation_text(const SimulationResult& result, bool trace);

// One JSON object and a newline; "trace" arrays only with `trace`. Ratios
// have at most 4 decimals.
std::string simulation_json(const SimulationResult& result, bool trace);

}  // namespace hami::ops
