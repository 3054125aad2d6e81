// ExecTokenSource: the bearer token of a kubeconfig `exec` user, taken from
// an ExecCredentialSource (exec_credential_source.hpp: how the plugin runs,
// caching, expiry, re-runs and errors). The same source may serve the
// user's client certificate to the ApiClient (ApiConfig::exec_credentials);
// one run then yields both. token() is empty when the plugin returned only
// a client certificate.
#pragma once

#include <memory>
#include <string>

#include "kube/exec_credential_source.hpp"
#include "kube/token_source.hpp"

namespace hami::kube {

class ExecTokenSource final : public TokenSource {
 public:
  explicit ExecTokenSource(std::shared_ptr<ExecCredentialSource> source);
  explicit ExecTokenSource(ExecPlugin plugin, ExecOptions options = {});

  // Throws ApiError when the plugin cannot produce a credential.
  std::string token() override;
  void invalidate() override;

  const ExecPlugin& plugin() const { return source_->plugin(); }
  const std::shared_ptr<ExecCredentialSource>& source() const { return source_; }

 private:
  std::shared_ptr<ExecCredentialSource> source_;
};

}  // namespace hami::kube
