// Closing a connection that may still carry unread request bytes.
//
// Closing a TCP socket with unread data makes the kernel send a reset,
// which can destroy the answer the client has not read yet. Instead the
// server ends its sending side (the client sees the end of the answer),
// then reads and discards what the client still sends until it closes, or
// `limits.drain_bytes` were read, or `limits.drain_time` passed, whichever
// comes first. A client that promised a body and sends nothing therefore
// holds the thread for at most drain_time.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include "server/server_limits.hpp"

namespace Poco::Net {
class HTTPServerRequest;
}

namespace hami::server {

// Ends sending on `socket`, drains it within the limits and closes it
// without a TLS close_notify (the sending side is already shut). Never
// throws. The socket must not be used afterwards.
void drain_and_close(Poco::Net::StreamSocket& socket, const ServerLimits& limits);

// The same for the connection `request` arrived on; false when the request
// is not a Poco server request (nothing was done).
bool drain_and_close(Poco::Net::HTTPServerRequest& request, const ServerLimits& limits);

}  // namespace hami::server
