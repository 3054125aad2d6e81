// Fuzz target: the ExtenderArgs decoder and the pod/node models it feeds.
// Any input must either decode or throw DecodeError / ObjectError — never
// crash, hang or read out of bounds. Dropping what the models do not read
// (NodeFields::model, which passes over plainly valid dropped members
// without the reader) must change neither the outcome, nor the error
// message, nor the node texts; nor must decoding it again with a node cache
// holding the nodes the model decode read, whose hits are those texts.
// Dropping the document afterwards leaves the texts as they were.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extender/extender_codec.hpp"
#include "extender/node_object_cache.hpp"
#include "k8s/node.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  std::string errors[3];
  std::optional<std::vector<std::string>> texts[3];
  hami::extender::NodeObjectCache cache(std::size_t{1} << 24);
  std::vector<hami::extender::NodeObjectCache::Fresh> fresh;
  int mode = 0;
  for (const auto fields : {hami::extender::NodeFields::all, hami::extender::NodeFields::model,
                            hami::extender::NodeFields::model}) {
    const int m = mode++;
    try {
      hami::extender::ExtenderArgs args = hami::extender::decode_extender_args(
          std::string(body), fields, m == 2 ? &cache : nullptr);
      if (args.pod != nullptr) {
        try {
          const hami::k8s::PodModel pod(*args.pod);
          (void)pod.view();
        } catch (const hami::k8s::ObjectError&) {
        }
      }
      for (size_t i = 0; i < args.node_items.size(); ++i) {
        if (args.known_nodes[i] != nullptr) {
          if (m != 2 || args.known_nodes[i]->size != args.node_texts[i].size())
            __builtin_trap();
          continue;
        }
        try {
          hami::k8s::NodeModel node(*args.node_items[i]);
          (void)node.view();
          if (m == 1)
            fresh.push_back({args.node_texts[i], std::move(node)});
        } catch (const hami::k8s::ObjectError&) {
        }
      }
      // The cache reads the texts now, while the body holds them.
      if (m == 1)
        cache.remember(std::move(fresh));
      // Every node's text lies inside the body and is one JSON object.
      if (args.node_texts.size() != args.node_items.size())
        __builtin_trap();
      for (const std::string_view text : args.node_texts) {
        if (text.size() < 2 || text.front() != '{' || text.back() != '}' ||
            text.data() < args.body.data() ||
            text.data() + text.size() > args.body.data() + args.body.size())
          __builtin_trap();
      }
      texts[m].emplace(args.node_texts.begin(), args.node_texts.end());
      // The texts outlive the document.
      args.drop_document();
      if (args.node_items.size() != 0 || args.pod != nullptr ||
          !std::equal(args.node_texts.begin(), args.node_texts.end(), texts[m]->begin(),
                      texts[m]->end()))
        __builtin_trap();
    } catch (const hami::extender::DecodeError& e) {
      errors[m] = e.what();
    }
  }
  if (errors[0] != errors[1] || texts[0] != texts[1] || errors[1] != errors[2] ||
      texts[1] != texts[2])
    __builtin_trap();
  try {
    (void)hami::extender::decode_binding_args(body);
  } catch (const hami::extender::DecodeError&) {
  }
  return 0;
}
