#include "mig_reservation.hpp"

#include "mig_number_text.hpp"

namespace hami::devices::nvidia {

void append_name(std::string& out, std::string_view name) {
  append_number(out, static_cast<std::int64_t>(name.size()));
  out += ':';
  out += name;
}

std::optional<std::string_view> take_name(std::string_view& text) {
  std::string_view rest = text;
  const auto len = take_u32(rest, ':');
  if (!len || *len > rest.size())
    return std::nullopt;
  const std::string_view name = rest.substr(0, *len);
  rest.remove_prefix(*len);
  text = rest;
  return name;
}

void append_reservation(std::string& out, const MigReservation& r) {
  append_number(out, r.placement.start);
  out += ',';
  append_number(out, r.placement.size);
  out += ',';
  append_name(out, r.profile);
}

std::string encode_reservations(std::span<const MigReservation> reservations) {
  std::string out;
  for (const MigReservation& r : reservations) {
    if (!out.empty())
      out += ';';
    append_reservation(out, r);
  }
  return out;
}

std::optional<std::vector<MigReservation>> decode_reservations(std::string_view data) {
  std::vector<MigReservation> out;
  while (!data.empty()) {
    MigReservation r;
    const auto start = take_u32(data, ',');
    const auto size = start ? take_u32(data, ',') : std::nullopt;
    const auto name = size ? take_name(data) : std::nullopt;
    if (!name)
      return std::nullopt;
    r.placement = {*start, *size};
    r.profile = *name;
    out.push_back(r);
    if (!data.empty()) {
      if (data.front() != ';' || data.size() == 1)
        return std::nullopt;
      data.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace hami::devices::nvidia
