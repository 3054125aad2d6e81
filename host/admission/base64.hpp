// Standard base64 (RFC 4648 §4, with padding): the encoding Go uses for the
// []byte `patch` field of an AdmissionResponse.
#pragma once

#include <string>
#include <string_view>

namespace hami::admission {

// Appends the base64 encoding of `bytes` to `out`.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace hami::admission
