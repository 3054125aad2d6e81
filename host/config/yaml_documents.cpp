#include "config/yaml_documents.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <optional>
#include <sstream>

namespace hami::config {

namespace {

// Remembers where each document's root starts and whether it is a bare
// null, which is all it takes to see the parser standing still.
class RootWatcher final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {
    events_ = 0;
    null_root_.reset();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    if (events_++ == 0)
      null_root_ = mark;
  }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++events_; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    ++events_;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnMapEnd() override {}

  // The document just handled was a lone null.
  std::optional<YAML::Mark> null_root() const { return events_ == 1 ? null_root_ : std::nullopt; }

 private:
  int events_ = 0;
  std::optional<YAML::Mark> null_root_;
};

}  // namespace

std::vector<YAML::Node> load_yaml_documents(const std::string& text) {
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    RootWatcher watcher;
    std::optional<YAML::Mark> previous_null;
    // Every document but an endless run of the same one consumes at least
    // a byte, so the count is bounded by the size as a last resort.
    for (size_t documents = 0; parser.HandleNextDocument(watcher); ++documents) {
      const std::optional<YAML::Mark> null_root = watcher.null_root();
      if ((null_root && previous_null && null_root->pos == previous_null->pos) ||
          documents > text.size()) {
        throw YAML::ParserException(null_root.value_or(YAML::Mark()), "expected a YAML value here");
      }
      previous_null = null_root;
    }
  }
  return YAML::LoadAll(text);
}

}  // namespace hami::config
