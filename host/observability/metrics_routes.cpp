#include "observability/metrics_routes.hpp"

#include "observability/exposition.hpp"

namespace hami::observability {

void register_metrics_routes(server::Router& router, const MetricsRegistry& registry) {
  // A GET carries no body; a client sending one anyway is refused (413).
  constexpr std::size_t kNoBody = 0;
  router.add("GET", std::string(kMetricsPath), kNoBody,
             [&registry](const server::Request&, server::Response& response) {
               response.status = 200;
               response.content_type = std::string(kExpositionContentType);
               response.body = registry.scrape();
             });
}

}  // namespace hami::observability
