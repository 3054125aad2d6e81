// FileClusterState's loading: reading a snapshot file, parsing its JSON or
// YAML documents and storing every object they hold (file_cluster.hpp
// describes the format).
#include <rapidjson/error/en.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <fstream>

#include "cluster/file_cluster.hpp"
#include "cluster/json_members.hpp"
#include "cluster/revision.hpp"
#include "config/yaml_documents.hpp"
#include "config/yaml_json.hpp"
#include "k8s/json_depth.hpp"

namespace hami::cluster {

namespace {

using rapidjson::Value;

// One document of a snapshot, parsed in place: its strings stay in `text`.
// Its pool's chunks follow the text's size: a large snapshot's are big
// enough to be mapped on their own and handed back whole when loading is
// done, and a YAML stream of many tiny documents does not reserve a large
// chunk for each.
struct SnapshotDocument {
  static constexpr size_t kMinChunkBytes = 4 * 1024;
  static constexpr size_t kMaxChunkBytes = 1024 * 1024;

  explicit SnapshotDocument(std::string json)
      : text(std::move(json)),
        pool(std::clamp(text.size(), kMinChunkBytes, kMaxChunkBytes)),
        doc(&pool) {}
  SnapshotDocument(const SnapshotDocument&) = delete;
  SnapshotDocument& operator=(const SnapshotDocument&) = delete;

  std::string text;
  rapidjson::MemoryPoolAllocator<> pool;
  rapidjson::Document doc;
};

// How much JSON a YAML snapshot may convert to, all documents together:
// far more than any real snapshot needs (JSON is rarely longer than the
// YAML it came from), far less than an alias bomb asks for.
size_t yaml_json_budget(size_t yaml_bytes) {
  return 8 * yaml_bytes + 1024 * 1024;
}

// The parser, the writer and the destructor all recurse per level.
void refuse_deep_nesting(std::string_view json, const std::string& where) {
  if (k8s::json_nests_deeper_than(json, k8s::kMaxJsonDepth)) {
    throw SnapshotError(where + ": nests JSON deeper than " + std::to_string(k8s::kMaxJsonDepth) +
                        " levels");
  }
}

}  // namespace

std::unique_ptr<FileClusterState> FileClusterState::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw SnapshotError(file.string() + ": cannot open the cluster snapshot");
  std::string text;
  // Sized once when the size is known: growing a string by doubling while
  // reading a multi-megabyte snapshot held up to twice its size.
  std::error_code size_error;
  if (const auto size = std::filesystem::file_size(file, size_error); !size_error)
    text.reserve(size);
  std::array<char, 64 * 1024> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0)
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));
  if (in.bad())
    throw SnapshotError(file.string() + ": cannot read the cluster snapshot");
  auto state = std::make_unique<FileClusterState>();
  state->load_text(std::move(text), file.string());
  return state;
}

std::unique_ptr<FileClusterState> FileClusterState::from_text(std::string_view text,
                                                              std::string_view origin) {
  auto state = std::make_unique<FileClusterState>();
  state->load_text(std::string(text), origin);
  return state;
}

void FileClusterState::load_text(std::string text, std::string_view origin) {
  const std::string where(origin);
  std::vector<std::unique_ptr<SnapshotDocument>> docs;
  // Neither format allows one, and the in-place JSON parse would stop at it
  // and ignore the rest.
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    throw SnapshotError(where + ": a NUL byte at offset " + std::to_string(nul) +
                        " (neither JSON nor YAML text may contain one)");
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    refuse_deep_nesting(text, where);
    auto& parsed = *docs.emplace_back(std::make_unique<SnapshotDocument>(std::move(text)));
    parsed.doc.ParseInsitu<kJsonParseFlags>(parsed.text.data());
    if (parsed.doc.HasParseError()) {
      throw SnapshotError(where + ": invalid JSON at offset " +
                          std::to_string(parsed.doc.GetErrorOffset()) + ": " +
                          rapidjson::GetParseError_En(parsed.doc.GetParseError()));
    }
  } else {
    std::vector<YAML::Node> yaml_docs;
    try {
      yaml_docs = config::load_yaml_documents(text);
    } catch (const YAML::Exception& e) {
      throw SnapshotError(where + ": invalid YAML: " + e.what());
    }
    size_t budget = yaml_json_budget(text.size());
    std::string().swap(text);
    for (const YAML::Node& node : yaml_docs) {
      if (!node || node.IsNull())
        continue;
      std::string json;
      try {
        json = config::yaml_to_json(node, where, "", budget);
      } catch (const std::exception& e) {
        throw SnapshotError(e.what());
      }
      budget -= json.size();
      refuse_deep_nesting(json, where);
      auto& parsed = *docs.emplace_back(std::make_unique<SnapshotDocument>(std::move(json)));
      parsed.doc.ParseInsitu<kJsonParseFlags>(parsed.text.data());
      if (parsed.doc.HasParseError())
        throw SnapshotError(where + ": document is not representable");
    }
  }

  // Start the revision counter above every numeric resourceVersion in the
  // snapshot, so a revision this store hands out never repeats one a
  // caller may have read.
  const auto scan = [&](const Value& object) {
    if (const Value* meta = find_member(object, "metadata")) {
      if (const auto rv = revision_of(string_at(*meta, "resourceVersion"))) {
        revision_ = std::max(revision_, *rv);
      }
    }
  };
  for (const auto& parsed : docs) {
    const Value& doc = parsed->doc;
    if (doc.IsArray()) {
      for (const Value& item : doc.GetArray())
        scan(item);
    } else if (const Value* items = find_member(doc, "items"); items && items->IsArray()) {
      for (const Value& item : items->GetArray())
        scan(item);
    } else {
      scan(doc);
    }
  }

  WatcherNotes notes;  // nobody watches yet
  for (const auto& parsed : docs) {
    Value& doc = parsed->doc;
    JsonAllocator& allocator = parsed->doc.GetAllocator();
    if (doc.IsArray()) {
      for (Value& item : doc.GetArray())
        add_object(item, allocator, kind_of(item), where, notes);
      continue;
    }
    if (!doc.IsObject())
      throw SnapshotError(where + ": a document must be an object or a list");
    const std::string_view kind = kind_of(doc);
    if (kind.size() >= 4 && kind.substr(kind.size() - 4) == "List") {
      Value* items = find_member(doc, "items");
      if (items == nullptr || items->IsNull())
        continue;
      if (!items->IsArray())
        throw SnapshotError(where + ": " + std::string(kind) + " items must be an array");
      // Items of typed lists (NodeList) usually carry no kind of their own.
      const std::string_view item_kind =
          kind == "List" ? std::string_view() : kind.substr(0, kind.size() - 4);
      for (Value& item : items->GetArray()) {
        const std::string_view own = kind_of(item);
        add_object(item, allocator, own.empty() ? item_kind : own, where, notes);
      }
      continue;
    }
    add_object(doc, allocator, kind, where, notes);
  }
}

}  // namespace hami::cluster
