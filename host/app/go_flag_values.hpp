// The value syntaxes of Go's flag packages (flag, spf13/pflag), for
// reading HAMi's command line (app/hami_flags.hpp). Each returns nullopt
// for text Go would refuse; callers name the flag in their error.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hami::app {

// strconv.ParseBool: 1, t, T, TRUE, true, True; 0, f, F, FALSE, false, False.
std::optional<bool> parse_go_bool(std::string_view text);

// time.ParseDuration: an optional sign, then one or more decimal numbers
// (fraction allowed: "1.5h", ".5s") each followed by a unit ns, us, µs, μs,
// ms, s, m or h ("5m", "28s", "1h30m", "-1.5h"); "0" alone is zero. Beyond
// Go's int64 nanoseconds (about 292 years) is refused.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

// A decimal integer with an optional sign, within int64. (Go also takes
// 0x/0o/0b prefixes for int flags; HAMi's chart never writes them.)
std::optional<int64_t> parse_go_int(std::string_view text);

// A finite decimal or scientific number ("5", "2.5", "1e3").
std::optional<double> parse_go_float(std::string_view text);

}  // namespace hami::app
