// Watch streams of the fake API server (GET …?watch=1): a 200 reply with
// chunked transfer encoding, one JSON event object per line, flushed per
// event.
//  - resourceVersion unset or "0": synthetic ADDED for every current object
//    (after the selectors), then changes;
//  - sendInitialEvents=true: the same, then a BOOKMARK carrying the
//    annotation "k8s.io/initial-events-end": "true";
//  - resourceVersion X: every change after X, then changes; X older than
//    the kept history → one ERROR event (410 Expired, "too old resource
//    version: X (Y)") and the end of the stream;
//  - selectors are applied to the object before and after each change, as
//    the real watch cache does: moving into the selection is ADDED, out of
//    it DELETED (carrying the previous state at the new resourceVersion);
//  - BOOKMARKs only when asked for (allowWatchBookmarks) and commanded
//    (FakeApiServer::send_bookmarks), never on a timer;
//  - the stream ends at timeoutSeconds (terminating chunk), on
//    send_watch_error (after the ERROR event), when the client goes away,
//    when the server stops; drop_watches shuts the socket down without the
//    terminating chunk.
#pragma once

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include "fake_kinds.hpp"
#include "fake_query.hpp"
#include "fake_server_state.hpp"

namespace hami::testing::fake {

// Serves one watch until it ends. `record` is completed with the status
// and stored in state.requests when the reply starts.
void serve_watch(ServerState& state, const Route& route, const Query& query,
                 Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                 RecordedRequest record);

// The BOOKMARK event object of a kind at a revision.
Json bookmark_object(const KindInfo& kind, const std::string& api_version, uint64_t revision,
                     bool initial_events_end);

}  // namespace hami::testing::fake
