// ServingFiles: the folder tls.selfManaged writes the bundle to, and the
// webhook listener's CertificateReloader reads it from (the same path as
// certFile/keyFile rotated by cert-manager):
//   tls.crt  the serving certificate (0644)
//   tls.key  its key (0600)
//   ca.crt   the CA certificate (0644), e.g. for a kube-scheduler in the
//            same pod verifying the extender listener
// Each file is written to a temporary name in the folder and renamed over
// the old one, so a reader never sees half a file. The CA key is never
// written to disk.
#pragma once

#include <filesystem>

#include "webhook_tls/tls_bundle.hpp"

namespace hami::webhook_tls {

class ServingFiles {
 public:
  // `directory` empty: a new private folder (0700) under the temporary
  // directory, removed at destruction. Otherwise it is created (0700) when
  // missing and kept. Throws std::runtime_error naming the folder.
  explicit ServingFiles(std::filesystem::path directory);
  ~ServingFiles();
  ServingFiles(const ServingFiles&) = delete;
  ServingFiles& operator=(const ServingFiles&) = delete;

  // Throws std::runtime_error naming the file that could not be written.
  void write(const TlsBundle& bundle) const;

  const std::filesystem::path& directory() const { return directory_; }
  std::filesystem::path cert_file() const { return directory_ / "tls.crt"; }
  std::filesystem::path key_file() const { return directory_ / "tls.key"; }
  std::filesystem::path ca_file() const { return directory_ / "ca.crt"; }

 private:
  std::filesystem::path directory_;
  bool owned_ = false;
};

}  // namespace hami::webhook_tls
