#include "ops/simulate_report.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <vector>

namespace hami::ops {

namespace {

std::string percent(double ratio) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, ratio * 100, std::chars_format::fixed, 1);
  return std::string(buf, res.ptr) + "%";
}

std::string pair_name(const PolicyPair& p) {
  return p.node + "/" + p.gpu;
}

// Rows of cells, the first column left-aligned, the others too, two spaces
// between columns.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size())
        line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string device_text(const TraceDevice& d) {
  return d.vendor + " " + d.id + " " + std::to_string(d.memory_mib) + " MiB " +
         std::to_string(d.cores) + " cores";
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void write_trace(Writer& w, const std::vector<TraceEntry>& trace) {
  w.Key("trace");
  w.StartArray();
  for (const TraceEntry& e : trace) {
    w.StartObject();
    w.Key("pod");
    str(w, e.pod);
    w.Key("outcome");
    switch (e.outcome) {
      case TraceEntry::Outcome::placed:
        str(w, "placed");
        w.Key("node");
        str(w, e.node);
        w.Key("score");
        w.Int64(e.score);
        w.Key("devices");
        w.StartArray();
        for (const TraceDevice& d : e.devices) {
          w.StartObject();
          w.Key("vendor");
          str(w, d.vendor);
          w.Key("id");
          str(w, d.id);
          w.Key("memoryMiB");
          w.Int64(d.memory_mib);
          w.Key("cores");
          w.Int64(d.cores);
          w.EndObject();
        }
        w.EndArray();
        break;
      case TraceEntry::Outcome::unplaced:
        str(w, "unplaced");
        w.Key("reason");
        str(w, e.reason);
        w.Key("detail");
        str(w, e.detail);
        break;
      default:
        str(w, "skipped");
        w.Key("detail");
        str(w, e.detail);
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string simulation_text(const SimulationResult& result, bool trace) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"policy (node/gpu)"};
  for (const PairResult& p : result.pairs)
    head.push_back(pair_name(p.policies));
  rows.push_back(head);
  const auto row = [&](std::string label, auto cell) {
    std::vector<std::string> r = {std::move(label)};
    for (const PairResult& p : result.pairs)
      r.push_back(cell(p));
    rows.push_back(std::move(r));
  };
  row("placed", [](const PairResult& p) { return std::to_string(p.placed); });
  row("unplaced", [](const PairResult& p) { return std::to_string(p.unplaced); });
  std::set<std::string> codes;
  for (const PairResult& p : result.pairs) {
    for (const auto& [code, n] : p.reasons)
      codes.insert(code);
  }
  for (const std::string& code : codes) {
    row("  " + code, [&](const PairResult& p) {
      const auto it = p.reasons.find(code);
      return std::to_string(it == p.reasons.end() ? 0 : it->second);
    });
  }
  row("skipped", [](const PairResult& p) { return std::to_string(p.skipped); });
  row("GPUs wholly free", [](const PairResult& p) {
    return std::to_string(p.devices_free) + " of " + std::to_string(p.devices);
  });
  row("GPUs used", [](const PairResult& p) { return std::to_string(p.devices_used); });
  row("memory used (used GPUs)", [](const PairResult& p) { return percent(p.memory_utilisation); });
  row("cores used (used GPUs)", [](const PairResult& p) { return percent(p.core_utilisation); });
  row("median request",
      [](const PairResult& p) { return std::to_string(p.median_request_mib) + " MiB"; });
  row("fragmentation", [](const PairResult& p) { return percent(p.fragmentation); });

  std::string out = "simulate: " + std::to_string(result.pods) + " pods on " +
                    std::to_string(result.nodes) + " nodes\n\n" + table(rows);
  if (!trace)
    return out;
  for (const PairResult& p : result.pairs) {
    out += "\ntrace " + pair_name(p.policies) + ":\n";
    std::vector<std::vector<std::string>> lines;
    for (const TraceEntry& e : p.trace) {
      switch (e.outcome) {
        case TraceEntry::Outcome::placed: {
          std::string devices;
          for (const TraceDevice& d : e.devices)
            devices += (devices.empty() ? "" : ", ") + device_text(d);
          lines.push_back(
              {"  " + e.pod, "-> " + e.node, "score " + std::to_string(e.score), devices});
          break;
        }
        case TraceEntry::Outcome::unplaced:
          lines.push_back({"  " + e.pod, "unplaced", e.reason, e.detail});
          break;
        default:
          lines.push_back({"  " + e.pod, "skipped", "", e.detail});
      }
    }
    out += table(lines);
  }
  return out;
}

std::string simulation_json(const SimulationResult& result, bool trace) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetMaxDecimalPlaces(4);
  w.StartObject();
  w.Key("pods");
  w.Uint64(result.pods);
  w.Key("nodes");
  w.Uint64(result.nodes);
  w.Key("results");
  w.StartArray();
  for (const PairResult& p : result.pairs) {
    w.StartObject();
    w.Key("nodePolicy");
    str(w, p.policies.node);
    w.Key("gpuPolicy");
    str(w, p.policies.gpu);
    w.Key("placed");
    w.Uint64(p.placed);
    w.Key("unplaced");
    w.Uint64(p.unplaced);
    w.Key("reasons");
    w.StartObject();
    for (const auto& [code, n] : p.reasons) {
      w.Key(code.data(), static_cast<rapidjson::SizeType>(code.size()));
      w.Uint64(n);
    }
    w.EndObject();
    w.Key("skipped");
    w.Uint64(p.skipped);
    w.Key("gpus");
    w.StartObject();
    w.Key("total");
    w.Uint64(p.devices);
    w.Key("free");
    w.Uint64(p.devices_free);
    w.Key("used");
    w.Uint64(p.devices_used);
    w.EndObject();
    w.Key("memoryUtilisation");
    w.Double(p.memory_utilisation);
    w.Key("coreUtilisation");
    w.Double(p.core_utilisation);
    w.Key("medianRequestMiB");
    w.Int64(p.median_request_mib);
    w.Key("fragmentation");
    w.Double(p.fragmentation);
    if (trace)
      write_trace(w, p.trace);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace hami::ops
