#include "mig_attributes.hpp"

#include "errors.hpp"
#include "mig_number_text.hpp"
#include "mig_reservation.hpp"
#include "text.hpp"

namespace hami::devices::nvidia {
namespace {

[[noreturn]] void malformed(std::size_t profile) {
  throw InvalidInput("MIG attributes: profile " + std::to_string(profile) + " is malformed");
}

}  // namespace

std::string encode_mig_attributes(std::span<const RegisteredMigProfile> profiles) {
  std::string out;
  for (const RegisteredMigProfile& p : profiles) {
    if (!out.empty())
      out += ';';
    append_number(out, p.memory_mb);
    out += ',';
    append_number(out, p.core);
    out += ',';
    append_number(out, p.slice_count);
    out += ',';
    for (std::size_t i = 0; i < p.placements.size(); ++i) {
      if (i > 0)
        out += '/';
      append_number(out, p.placements[i].start);
      out += '+';
      append_number(out, p.placements[i].size);
    }
    out += ',';
    append_name(out, p.name);
  }
  return out;
}

std::vector<MigProfile> decode_mig_attributes(std::string_view text) {
  std::vector<MigProfile> out;
  while (!text.empty()) {
    const std::size_t n = out.size();
    MigProfile p;
    const auto memory = take_i32(text, ',');
    const auto core = memory ? take_i32(text, ',') : std::nullopt;
    const auto slices = core ? take_u32(text, ',') : std::nullopt;
    if (!slices)
      malformed(n);
    p.memory_mb = *memory;
    p.core = *core;
    p.slice_count = *slices;
    const std::size_t end = text.find(',');
    if (end == std::string_view::npos)
      malformed(n);
    std::string_view placements = text.substr(0, end);
    text.remove_prefix(end + 1);
    if (!placements.empty()) {
      bool ok = true;
      for_each_piece(placements, '/', [&](std::string_view piece) {
        const std::size_t plus = piece.find('+');
        const auto start =
            plus == std::string_view::npos ? std::nullopt : parse_u32(piece.substr(0, plus));
        const auto size = start ? parse_u32(piece.substr(plus + 1)) : std::nullopt;
        ok = size.has_value();
        if (ok)
          p.placements.push_back({*start, *size});
        return ok;
      });
      if (!ok)
        malformed(n);
    }
    const auto name = take_name(text);
    if (!name)
      malformed(n);
    p.name = *name;
    out.push_back(std::move(p));
    if (!text.empty()) {
      if (text.front() != ';' || text.size() == 1)
        malformed(n);
      text.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace hami::devices::nvidia
