#include "extender/extender_service.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "extender/allocations_report.hpp"
#include "extender/explain_route.hpp"
#include "extender/extender_codec.hpp"
#include "extender/preemption_route.hpp"
#include "hami/plugin.hpp"
#include "k8s/node.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"
#include "log/logger.hpp"
#include "server/router.hpp"

namespace hami::extender {

namespace {

Reply filter_error(int status, std::string message) {
  FilterResultOut out;
  out.error = std::move(message);
  return {status, encode_filter_result(out)};
}

std::string node_item_name(const rapidjson::Value& item) {
  const auto meta = item.FindMember("metadata");
  if (meta == item.MemberEnd() || !meta->value.IsObject())
    return {};
  const auto name = meta->value.FindMember("name");
  if (name == meta->value.MemberEnd() || !name->value.IsString())
    return {};
  return {name->value.GetString(), name->value.GetStringLength()};
}

std::string text_of(hami_str s) {
  return std::string(hami::to_sv(s));
}

std::string pod_field(const k8s::PodModel& pod) {
  return text_of(pod.view().namespace_) + "/" + text_of(pod.view().name);
}

}  // namespace

// What one filter call saw, for the observer and the log line.
struct ExtenderService::Trace {
  scheduling::FilterOutcome outcome;
  size_t candidates = 0;
  size_t known = 0;  // full Nodes taken from the node cache
  std::string pod;   // namespace/name, empty when the pod could not be read
  std::string uid;
};

std::string Reply::joined() const {
  if (tail.empty())
    return body;
  size_t bytes = body.size();
  for (const std::string_view piece : tail)
    bytes += piece.size();
  std::string all;
  all.reserve(bytes);
  all += body;
  for (const std::string_view piece : tail)
    all += piece;
  return all;
}

namespace {

// A reply whose tail points into the decoded request and into its own
// trailer: both live as long as the reply's `keep`.
struct EchoedReply {
  std::shared_ptr<const ExtenderArgs> args;
  std::string trailer;
};

Reply reply_of(std::shared_ptr<const ExtenderArgs> args, EncodedFilterResult encoded) {
  Reply reply(200, std::move(encoded.head));
  if (encoded.views.empty() && encoded.trailer.empty())
    return reply;
  auto keep =
      std::make_shared<EchoedReply>(EchoedReply{std::move(args), std::move(encoded.trailer)});
  reply.tail = std::move(encoded.views);
  reply.tail.push_back(keep->trailer);
  reply.keep = std::move(keep);
  return reply;
}

Reply whole(Reply reply) {
  if (!reply.tail.empty()) {
    reply.body = reply.joined();
    reply.tail.clear();
    reply.keep.reset();
  }
  return reply;
}

}  // namespace

void ExtenderService::remember_nodes(std::vector<NodeObjectCache::Fresh> fresh) const {
  try {
    node_cache_.remember(std::move(fresh));
  } catch (const std::bad_alloc&) {
    // The cache only saves work: the call goes on without it.
  }
}

namespace {

// How many of the call's Node objects the node cache supplied.
size_t cached_count(const ExtenderArgs& args) {
  return static_cast<size_t>(
      std::count_if(args.known_nodes.begin(), args.known_nodes.end(),
                    [](const NodeObjectCache::Entry* e) { return e != nullptr; }));
}

}  // namespace

void ExtenderService::report_full_nodes(const ExtenderArgs& args) const {
  if (!observer_.full_nodes)
    return;
  const size_t cached = cached_count(args);
  const auto held = node_cache_.snapshot();
  observer_.full_nodes(cached, args.known_nodes.size() - cached, held->size(), held->bytes());
}

Reply ExtenderService::filter(std::string_view body) const {
  return whole(filter_taking(std::string(body)));
}

Reply ExtenderService::prioritize(std::string_view body) const {
  return prioritize_taking(std::string(body));
}

Reply ExtenderService::filter_taking(std::string body) const {
  const auto started = std::chrono::steady_clock::now();
  Trace trace;
  Reply reply = run_filter(std::move(body), trace);
  if (observer_.filtered)
    observer_.filtered(trace.outcome, trace.candidates);
  if (logger_ != nullptr) {
    const bool failed = !trace.outcome.error.empty();
    if (failed || logger_->enabled(log::Level::debug)) {
      log::Fields fields = {
          {"pod", trace.pod},
          {"uid", trace.uid},
          {"candidates", std::to_string(trace.candidates)},
          {"cached_nodes", std::to_string(trace.known)},
          {"feasible",
           std::to_string(trace.outcome.passthrough ? trace.candidates : trace.outcome.fit.size())},
          {"duration_ms", log::milliseconds_text(std::chrono::steady_clock::now() - started)}};
      if (failed)
        fields.push_back({"error", trace.outcome.error});
      logger_->write(failed ? log::Level::info : log::Level::debug,
                     failed ? "filter failed" : "filtered", fields);
    }
  }
  return reply;
}

Reply ExtenderService::run_filter(std::string body, Trace& trace) const {
  const auto fail = [&trace](int status, std::string message) {
    trace.outcome.error = message;
    return filter_error(status, std::move(message));
  };
  if (body.empty())
    return fail(400, "empty request body");
  try {
    // Shared: a reply echoing nodes keeps it until the answer is written.
    const auto decoded =
        std::make_shared<ExtenderArgs>(std::move(body), NodeFields::model, &node_cache_);
    const auto shared = std::shared_ptr<const ExtenderArgs>(decoded);
    const ExtenderArgs& args = *shared;
    if (args.pod == nullptr)
      return fail(200, "extender args missing pod");
    std::optional<k8s::PodModel> pod;
    try {
      pod.emplace(*args.pod);
    } catch (const k8s::ObjectError& e) {
      return fail(200, std::string("invalid Pod: ") + e.what());
    }
    trace.pod = pod_field(*pod);
    trace.uid = text_of(pod->view().uid);

    FilterResultOut out;
    if (args.nodes != nullptr) {
      // Full Nodes mode (nodeCacheCapable: false).
      const size_t count = args.node_items.size();
      // Nodes the cache may keep are modelled once, owning their strings,
      // and handed to it after the filter; the others borrow from `args`.
      // Both are reserved: `nodes` points into them.
      const bool caching = node_cache_.budget() > 0;
      std::vector<k8s::NodeModel> models;
      std::vector<NodeObjectCache::Fresh> fresh;
      std::vector<const k8s::NodeModel*> nodes;
      std::vector<const scheduling::NodeDevicesMemo*> memos;  // one per node
      std::vector<size_t> item_index;  // nodes[k] is Nodes.items[item_index[k]]
      models.reserve(count);
      fresh.reserve(caching ? count : 0);
      nodes.reserve(count);
      memos.reserve(count);
      item_index.reserve(count);
      for (size_t i = 0; i < count; ++i) {
        if (const auto& known = args.known_nodes[i]) {
          nodes.push_back(&known->model);
          memos.push_back(&known->devices);
          item_index.push_back(i);
          continue;
        }
        try {
          if (caching && args.node_texts[i].size() >= NodeObjectCache::kKeyBytes) {
            fresh.push_back({args.node_texts[i], k8s::NodeModel(*args.node_items[i])});
            nodes.push_back(&fresh.back().model);
          } else {
            models.emplace_back(*args.node_items[i], k8s::NodeModel::Borrowing{});
            nodes.push_back(&models.back());
          }
          memos.push_back(nullptr);
          item_index.push_back(i);
        } catch (const k8s::ObjectError& e) {
          std::string name = node_item_name(*args.node_items[i]);
          if (name.empty())
            name = "Nodes.items[" + std::to_string(i) + "]";
          out.unresolvable[name] = std::string("invalid Node: ") + e.what();
        }
      }
      trace.candidates = args.node_items.size();
      trace.known = cached_count(args);
      // Every model owns its strings now (the pod's too): the parsed
      // document goes before the filter runs. The texts stay in the body.
      if (models.empty())
        decoded->drop_document();
      scheduling::FilterOutcome& result = trace.outcome;
      result = scheduler_.filter(*pod, nodes, memos);
      nodes.clear();  // some point into `fresh`, which the cache takes now
      remember_nodes(std::move(fresh));
      report_full_nodes(args);
      if (!result.error.empty())
        return filter_error(200, result.error);
      // Nodes are echoed as sent, their own bytes (the document holds only
      // what the node models read).
      if (result.passthrough) {
        out.nodes_text = args.nodes_text;
        out.node_names = args.node_names;
        out.unresolvable.clear();
        return reply_of(shared, encode_filter_result_parts(out));
      }
      if (!result.fit.empty()) {
        std::vector<std::string_view> fit;
        fit.reserve(result.fit.size());
        for (const size_t i : result.fit)
          fit.push_back(args.node_texts[item_index[i]]);
        out.node_texts = std::move(fit);
        out.node_texts_source = args.body;
      }
      out.failed = result.failed;
      out.unresolvable.merge(std::map<std::string, std::string>(result.unresolvable));
      return reply_of(shared, encode_filter_result_parts(out));
    }

    // NodeNames mode (nodeCacheCapable: true).
    const std::vector<std::string> names = args.node_names.value_or(std::vector<std::string>{});
    trace.candidates = names.size();
    scheduling::FilterOutcome& result = trace.outcome;
    result = scheduler_.filter(*pod, names);
    if (!result.error.empty())
      return filter_error(200, result.error);
    if (result.passthrough) {
      out.node_names = args.node_names;
      return {200, encode_filter_result(out)};
    }
    if (!result.fit.empty()) {
      std::vector<std::string> fit;
      fit.reserve(result.fit.size());
      for (const size_t i : result.fit)
        fit.push_back(names[i]);
      out.node_names = std::move(fit);
    }
    out.failed = result.failed;
    out.unresolvable = result.unresolvable;
    return {200, encode_filter_result(out)};
  } catch (const DecodeError& e) {
    return fail(200, e.what());
  } catch (const std::exception& e) {
    return fail(200, e.what());
  }
}

Reply ExtenderService::prioritize_taking(std::string body) const {
  if (body.empty())
    return {400, server::error_body("empty request body")};
  try {
    const ExtenderArgs args(std::move(body), NodeFields::model, &node_cache_);
    if (args.pod == nullptr)
      return {400, server::error_body("extender args missing pod")};
    const k8s::PodModel pod(*args.pod);
    std::vector<std::string> names;
    if (args.nodes != nullptr) {
      for (size_t i = 0; i < args.node_items.size(); ++i) {
        const auto& known = args.known_nodes[i];
        names.push_back(known ? std::string(known->model.name())
                              : node_item_name(*args.node_items[i]));
      }
      report_full_nodes(args);
    } else if (args.node_names) {
      names = *args.node_names;
    }
    std::vector<HostPriority> list;
    for (auto& s : scheduler_.prioritize(pod, names))
      list.push_back({std::move(s.host), s.score});
    return {200, encode_host_priority_list(list)};
  } catch (const std::exception& e) {
    return {400, server::error_body(e.what())};
  }
}

Reply ExtenderService::bind_taking(std::string body) const {
  return bind(body);
}

Reply ExtenderService::bind(std::string_view body) const {
  if (body.empty())
    return {400, encode_binding_result("empty request body")};
  const auto started = std::chrono::steady_clock::now();
  ExtenderBindingArgs args;
  std::string error;
  try {
    args = decode_binding_args(body);
    error = scheduler_.bind(args.pod_namespace, args.pod_name, args.pod_uid, args.node);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (observer_.bound)
    observer_.bound(error);
  if (logger_ != nullptr) {
    log::Fields fields = {
        {"pod", args.pod_name.empty() ? std::string() : args.pod_namespace + "/" + args.pod_name},
        {"uid", args.pod_uid},
        {"node", args.node},
        {"duration_ms", log::milliseconds_text(std::chrono::steady_clock::now() - started)}};
    if (error.empty()) {
      logger_->info("bound", fields);
    } else {
      fields.push_back({"error", error});
      logger_->warn("bind failed", fields);
    }
  }
  return {200, encode_binding_result(error)};
}

void register_extender_routes(server::Router& router, scheduling::Scheduler& scheduler,
                              std::size_t body_limit, const log::Logger* logger,
                              ExtenderObserver observer, std::size_t node_cache_bytes) {
  const auto service =
      std::make_shared<ExtenderService>(scheduler, logger, std::move(observer), node_cache_bytes);
  // The handlers take the request body: a full-Nodes body is megabytes,
  // parsed where it lies and echoed from there.
  const auto route = [&](const char* path, Reply (ExtenderService::*verb)(std::string) const,
                         bool bounds_nesting) {
    router.add(
        "POST", path, body_limit,
        [service, verb](server::Request& request, server::Response& response) {
          Reply reply = ((*service).*verb)(std::move(request.body));
          response.status = reply.status;
          response.content_type = "application/json";
          response.body = std::move(reply.body);
          response.tail = std::move(reply.tail);
          response.keep = std::move(reply.keep);
        },
        server::RouteOptions(server::Execution::worker, bounds_nesting));
  };
  router.add("GET", "/allocations", 0,
             [&scheduler](const server::Request&, server::Response& response) {
               response.body = allocations_report(scheduler);
             });
  // ExtenderArgs bodies (megabytes with full Nodes) are decoded by a reader
  // that refuses nesting past the bound itself; the small binding body
  // keeps the router's check.
  route("/filter", &ExtenderService::filter_taking, true);
  route("/schedule", &ExtenderService::filter_taking, true);
  route("/prioritize", &ExtenderService::prioritize_taking, true);
  route("/bind", &ExtenderService::bind_taking, false);
  register_preemption_route(router, scheduler, body_limit, logger);
  register_explain_route(router, scheduler, body_limit);
}

}  // namespace hami::extender
