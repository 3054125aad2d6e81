#include "kube/event_recorder.hpp"

#include "kube/core_event_recorder.hpp"
#include "kube/event_series.hpp"

namespace hami::kube {

std::unique_ptr<EventRecorder> make_event_recorder(std::shared_ptr<ApiClient> client,
                                                   EventRecorderOptions options) {
  if (options.core_v1)
    return std::make_unique<CoreEventRecorder>(std::move(client), std::move(options));
  return std::make_unique<EventSeriesRecorder>(std::move(client), std::move(options));
}

}  // namespace hami::kube
