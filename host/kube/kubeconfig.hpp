// Kubeconfig (clientcmd v1) parsing. load_kubeconfig() (api_config.hpp)
// reads a file and calls parse_kubeconfig(); the text entry point exists so
// the parser can be tested and fuzzed without a file of its own.
//
// Only the keys the client uses are read; other keys (preferences,
// extensions, disable-compression…) are ignored as client-go ignores what it
// does not know. Keys that would change how to authenticate or connect and
// that this client cannot honour (user auth-provider, cluster proxy-url)
// are refused rather than silently dropped. An exec user becomes an
// ExecCredentialSource (exec_credential_source.hpp) serving the token and
// the client certificate; its plugin runs at the first request, never while
// parsing.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "kube/api_config.hpp"

namespace hami::kube {

// `file` names the document in messages ("kubeconfig <file>: …") and is
// where relative paths (certificate-authority, client-certificate,
// client-key, tokenFile, an exec command with a '/') resolve. `context`
// empty: current-context.
// Throws ApiConfigError.
ApiConfig parse_kubeconfig(const std::string& text, const std::filesystem::path& file,
                           const std::string& context = {});

// Standard base64 with optional padding and embedded whitespace, as the
// *-data keys carry it; throws ApiConfigError("<what>: invalid base64").
std::string decode_base64(std::string_view text, std::string_view what);

}  // namespace hami::kube
