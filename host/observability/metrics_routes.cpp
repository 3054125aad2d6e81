#include "observability/metrics_routes.hpp"

#include "observability/exposition.hpp"

namespace hami::observability {

void register_metrics_routes(server::Router& router, const MetricsRegistry& registry,
                             const log::Logger* logger) {
  // A GET carries no body; a client sending one anyway is refused (413).
  constexpr std::size_t kNoBody = 0;
  router.add("GET", std::string(kMetricsPath), kNoBody,
             [&registry, logger](const server::Request&, server::Response& response) {
               std::vector<std::string> problems;
               response.status = 200;
               response.content_type = std::string(kExpositionContentType);
               response.body = registry.scrape(&problems);
               if (logger != nullptr && !problems.empty()) {
                 logger->warn(
                     "metrics scrape incomplete",
                     {{"problems", std::to_string(problems.size())}, {"first", problems.front()}});
               }
             },
             server::Execution::inline_loop);
}

}  // namespace hami::observability
