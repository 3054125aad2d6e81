#include "server/certificate_reloader.hpp"

#include <openssl/pem.h>
#include <sys/stat.h>

#include <stdexcept>

#include "log/logger.hpp"

namespace hami::server {
namespace {

int refuse_passphrase(char*, int, int, void*) {
  return -1;
}

BioPtr open_file(const std::filesystem::path& p) {
  BioPtr bio(BIO_new_file(p.c_str(), "r"));
  if (!bio)
    throw std::runtime_error("cannot open \"" + p.string() + "\": " + openssl_errors());
  return bio;
}

}  // namespace

CertificateReloader::CertificateReloader(std::filesystem::path cert_file,
                                         std::filesystem::path key_file,
                                         std::chrono::milliseconds check_interval,
                                         const log::Logger* logger,
                                         std::filesystem::path client_ca_file)
    : cert_file_(std::move(cert_file)),
      key_file_(std::move(key_file)),
      client_ca_file_(std::move(client_ca_file)),
      check_interval_(check_interval),
      logger_(logger),
      identity_(load()),
      initial_(identity_.get()),
      next_check_(std::chrono::steady_clock::now() + check_interval) {}

CertificateReloader::~CertificateReloader() = default;

void CertificateReloader::attach(SSL_CTX* ctx) {
  SSL_CTX_set_cert_cb(ctx, &CertificateReloader::on_handshake, this);
}

std::string CertificateReloader::current_sha256() const {
  const std::lock_guard lock(mutex_);
  return identity_->sha256;
}

CertificateReloader::FileStamp CertificateReloader::stamp(const std::filesystem::path& p) const {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0)
    return {};
  FileStamp s;
  s.inode = static_cast<uintmax_t>(st.st_ino);
  s.size = static_cast<uintmax_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}

std::shared_ptr<const CertificateReloader::Identity> CertificateReloader::load() const {
  auto id = std::make_shared<Identity>();
  // Stamps first: a change racing with the read shows up at the next check.
  id->cert_stamp = stamp(cert_file_);
  id->key_stamp = stamp(key_file_);
  {
    const BioPtr bio = open_file(cert_file_);
    id->leaf.reset(PEM_read_bio_X509(bio.get(), nullptr, refuse_passphrase, nullptr));
    if (!id->leaf) {
      throw std::runtime_error("\"" + cert_file_.string() +
                               "\": no PEM certificate: " + openssl_errors());
    }
    while (X509* extra = PEM_read_bio_X509(bio.get(), nullptr, refuse_passphrase, nullptr)) {
      id->chain.emplace_back(extra);
    }
    openssl_errors();  // the read past the last certificate leaves an error
  }
  {
    const BioPtr bio = open_file(key_file_);
    id->key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, nullptr));
    if (!id->key) {
      throw std::runtime_error("\"" + key_file_.string() +
                               "\": no unencrypted PEM private key: " + openssl_errors());
    }
  }
  if (X509_check_private_key(id->leaf.get(), id->key.get()) != 1) {
    throw std::runtime_error("\"" + key_file_.string() + "\" does not match \"" +
                             cert_file_.string() + "\": " + openssl_errors());
  }
  id->sha256 = certificate_sha256(id->leaf.get());
  if (!client_ca_file_.empty())
    load_client_cas(*id);
  return id;
}

void CertificateReloader::load_client_cas(Identity& id) const {
  id.ca_stamp = stamp(client_ca_file_);
  id.ca_store.reset(X509_STORE_new());
  id.ca_names.reset(sk_X509_NAME_new_null());
  if (!id.ca_store || !id.ca_names)
    throw std::runtime_error("out of memory loading client CAs");
  const BioPtr bio = open_file(client_ca_file_);
  while (X509* raw = PEM_read_bio_X509(bio.get(), nullptr, refuse_passphrase, nullptr)) {
    const X509Ptr ca(raw);
    X509_NAME* name = X509_NAME_dup(X509_get_subject_name(ca.get()));
    if (X509_STORE_add_cert(id.ca_store.get(), ca.get()) != 1 || name == nullptr ||
        sk_X509_NAME_push(id.ca_names.get(), name) <= 0) {
      X509_NAME_free(name);
      throw std::runtime_error("\"" + client_ca_file_.string() +
                               "\": cannot use a CA certificate: " + openssl_errors());
    }
  }
  openssl_errors();  // the read past the last certificate leaves an error
  if (sk_X509_NAME_num(id.ca_names.get()) == 0) {
    throw std::runtime_error("\"" + client_ca_file_.string() + "\": no PEM CA certificate");
  }
}

std::shared_ptr<const CertificateReloader::Identity> CertificateReloader::current() {
  const std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_)
    return identity_;
  next_check_ = now + check_interval_;
  if (stamp(cert_file_) == identity_->cert_stamp && stamp(key_file_) == identity_->key_stamp &&
      (client_ca_file_.empty() || stamp(client_ca_file_) == identity_->ca_stamp)) {
    return identity_;
  }
  try {
    auto fresh = load();
    if (logger_ != nullptr) {
      logger_->info("certificate reloaded", {{"file", cert_file_.string()},
                                             {"previous_sha256", identity_->sha256},
                                             {"certificate_sha256", fresh->sha256}});
    }
    identity_ = std::move(fresh);
  } catch (const std::exception& e) {
    // Most often a rotation caught half-way; keep serving the old pair.
    if (logger_ != nullptr) {
      logger_->error("certificate reload failed; keeping the previous certificate",
                     {{"error", e.what()}});
    }
  }
  return identity_;
}

bool CertificateReloader::install(SSL* ssl, const Identity& id) {
  if (SSL_use_certificate(ssl, id.leaf.get()) != 1 || SSL_use_PrivateKey(ssl, id.key.get()) != 1 ||
      SSL_clear_chain_certs(ssl) != 1) {
    return false;
  }
  for (const auto& extra : id.chain) {
    if (SSL_add1_chain_cert(ssl, extra.get()) != 1)
      return false;
  }
  if (id.ca_store) {
    // The peer's chain is verified against this store instead of the
    // context's; the names go into the CertificateRequest.
    STACK_OF(X509_NAME)* names = SSL_dup_CA_list(id.ca_names.get());
    if (names == nullptr || SSL_set1_verify_cert_store(ssl, id.ca_store.get()) != 1)
      return false;
    SSL_set_client_CA_list(ssl, names);  // takes ownership
  }
  return true;
}

int CertificateReloader::on_handshake(SSL* ssl, void* self) {
  auto* reloader = static_cast<CertificateReloader*>(self);
  const auto id = reloader->current();
  if (id.get() == reloader->initial_)
    return 1;
  if (!install(ssl, *id)) {
    openssl_errors();
    return 0;  // fails this handshake only
  }
  return 1;
}

}  // namespace hami::server
