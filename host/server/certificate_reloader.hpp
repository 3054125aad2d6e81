// CertificateReloader: serves the current content of tls.certFile,
// tls.keyFile and (when set) tls.clientCAFile without a restart, as HAMi does with its certificate
// watcher (cert-manager and kube-webhook-certgen rotate these files in place).
//
// Installed as the context's certificate callback, it runs at the start of
// every handshake. At most once per check interval it compares the files'
// identity (inode, size, modification time, following symlinks, so the
// swap of a Kubernetes secret volume's `..data` link is seen); when any
// changed it loads all of them, checks that the key matches the
// certificate, and from then on hands the new certificate chain, key and
// client CA set (verification store and the CA names sent to clients) to
// new handshakes. Connections already established keep what they
// negotiated. A pair that cannot
// be loaded (half-written, mismatched, unreadable) is logged and skipped:
// handshakes keep the previous identity and the next check tries again.
// Thread-safe: handshakes run on many server threads.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/openssl_handles.hpp"

namespace hami::log {
class Logger;
}

namespace hami::server {

class CertificateReloader {
 public:
  // Loads the pair once; throws std::runtime_error naming the file when it
  // cannot. `logger` may be null and must otherwise outlive the reloader.
  // `client_ca_file` empty: clients are not verified by this reloader.
  CertificateReloader(std::filesystem::path cert_file, std::filesystem::path key_file,
                      std::chrono::milliseconds check_interval, const log::Logger* logger,
                      std::filesystem::path client_ca_file = {});
  ~CertificateReloader();

  CertificateReloader(const CertificateReloader&) = delete;
  CertificateReloader& operator=(const CertificateReloader&) = delete;

  // Makes `ctx` ask this reloader for the certificate on every handshake.
  // The reloader must outlive every handshake on `ctx`.
  void attach(SSL_CTX* ctx);

  // SHA-256 fingerprint of the identity new handshakes get.
  std::string current_sha256() const;

 private:
  struct FileStamp {
    uintmax_t inode = 0;
    uintmax_t size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const FileStamp&) const = default;
  };
  struct StoreFree {
    void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  };
  struct NamesFree {
    void operator()(STACK_OF(X509_NAME) * p) const { sk_X509_NAME_pop_free(p, X509_NAME_free); }
  };
  struct Identity {
    X509Ptr leaf;
    std::vector<X509Ptr> chain;
    EvpPkeyPtr key;
    std::string sha256;
    FileStamp cert_stamp;
    FileStamp key_stamp;
    // Client verification; null when no client CA file is configured.
    std::unique_ptr<X509_STORE, StoreFree> ca_store;
    std::unique_ptr<STACK_OF(X509_NAME), NamesFree> ca_names;
    FileStamp ca_stamp;
  };

  static int on_handshake(SSL* ssl, void* self);
  std::shared_ptr<const Identity> current();
  std::shared_ptr<const Identity> load() const;  // throws std::runtime_error
  void load_client_cas(Identity& id) const;      // throws std::runtime_error
  static bool install(SSL* ssl, const Identity& id);
  FileStamp stamp(const std::filesystem::path& p) const;

  std::filesystem::path cert_file_;
  std::filesystem::path key_file_;
  std::filesystem::path client_ca_file_;
  std::chrono::milliseconds check_interval_;
  const log::Logger* logger_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Identity> identity_;
  // The pair loaded at start, which the context itself already serves.
  const Identity* initial_ = nullptr;
  std::chrono::steady_clock::time_point next_check_;
};

}  // namespace hami::server
