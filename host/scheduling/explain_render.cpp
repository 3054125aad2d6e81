// The JSON and text forms of an explanation (docs/explain.md).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "scheduling/explain.hpp"

namespace hami::scheduling {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

void device_json(Writer& w, const DeviceExplanation& d) {
  w.StartObject();
  key(w, "id");
  string(w, d.id);
  key(w, "index");
  w.Uint(d.index);
  key(w, "fits");
  w.Bool(d.fits);
  key(w, "reason");
  string(w, d.reason);
  key(w, "detail");
  string(w, d.detail);
  w.EndObject();
}

void node_json(Writer& w, const NodeExplanation& n) {
  w.StartObject();
  key(w, "name");
  string(w, n.name);
  key(w, "fits");
  w.Bool(n.fits);
  if (n.fits) {
    key(w, "score");
    w.Int64(n.score);
    key(w, "rank");
    w.Uint64(n.rank);
    key(w, "chosen");
    w.StartArray();
    for (const std::string& id : n.chosen)
      string(w, id);
    w.EndArray();
  } else {
    key(w, "reason");
    string(w, n.reason);
    key(w, "detail");
    string(w, n.detail);
  }
  key(w, "devices");
  w.StartArray();
  for (const DeviceExplanation& d : n.devices)
    device_json(w, d);
  w.EndArray();
  w.EndObject();
}

std::string pad(std::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width)
    out.append(width - out.size(), ' ');
  return out;
}

}  // namespace

std::string explanation_json(const Explanation& e) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  key(w, "pod");
  string(w, e.pod);
  key(w, "policies");
  w.StartObject();
  key(w, "node");
  string(w, e.node_policy);
  key(w, "gpu");
  string(w, e.gpu_policy);
  w.EndObject();
  key(w, "summary");
  string(w, e.summary);
  key(w, "nodes");
  w.StartArray();
  for (const NodeExplanation& n : e.nodes)
    node_json(w, n);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string explanation_text(const Explanation& e) {
  std::string out = "pod " + e.pod + "  node policy " +
                    (e.node_policy.empty() ? std::string("-") : e.node_policy) + "  gpu policy " +
                    (e.gpu_policy.empty() ? std::string("-") : e.gpu_policy) + "\n" + e.summary +
                    "\n";
  for (const NodeExplanation& n : e.nodes) {
    out += "\n" + n.name;
    if (n.fits) {
      out += "  fits  score " + std::to_string(n.score) + "  rank " + std::to_string(n.rank) + "\n";
    } else {
      out += "  does not fit: " + n.reason + "\n";
      if (!n.detail.empty() && n.detail != n.reason)
        out += "  " + n.detail + "\n";
    }
    if (n.devices.empty())
      continue;
    const std::array<std::string_view, 5> head{"GPU", "ID", "FITS", "REASON", "DETAIL"};
    std::array<size_t, 4> width{};
    for (size_t c = 0; c < width.size(); ++c)
      width[c] = head[c].size();
    const auto fits_word = [&n](const DeviceExplanation& d) -> std::string_view {
      if (std::find(n.chosen.begin(), n.chosen.end(), d.id) != n.chosen.end())
        return "chosen";
      return d.fits ? "yes" : "no";
    };
    for (const DeviceExplanation& d : n.devices) {
      width[0] = std::max(width[0], std::to_string(d.index).size());
      width[1] = std::max(width[1], d.id.size());
      width[2] = std::max(width[2], fits_word(d).size());
      width[3] = std::max(width[3], d.reason.size());
    }
    const auto row = [&](std::string_view a, std::string_view b, std::string_view c,
                         std::string_view d, std::string_view detail) {
      out += "  " + pad(a, width[0]) + "  " + pad(b, width[1]) + "  " + pad(c, width[2]) + "  " +
             pad(d, width[3]) + "  " + std::string(detail);
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      out += "\n";
    };
    row(head[0], head[1], head[2], head[3], head[4]);
    for (const DeviceExplanation& d : n.devices)
      row(std::to_string(d.index), d.id, fits_word(d), d.reason, d.detail);
  }
  return out;
}

}  // namespace hami::scheduling
