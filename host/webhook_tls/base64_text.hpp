// Standard base64 (RFC 4648 §4, padded): how a Secret's data values and a
// webhook's caBundle carry bytes in JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hami::webhook_tls {

std::string base64_encode(std::string_view bytes);

// nullopt unless `text` is canonical padded base64 (length a multiple of
// four, only the alphabet, '=' only as the last one or two characters).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace hami::webhook_tls
