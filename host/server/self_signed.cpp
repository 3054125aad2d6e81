#include "server/self_signed.hpp"

#include <openssl/bn.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace hami::server {
namespace {

constexpr long kValidBeforeNowSeconds = 3600;  // tolerate small clock skew
constexpr long kValidDays = 365;

[[noreturn]] void fail(const char* step) {
  throw std::runtime_error(std::string("cannot generate the self-signed certificate (") + step +
                           "): " + openssl_errors());
}

void add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr)
    fail("extension");
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1)
    fail("extension");
}

void set_random_serial(X509* cert) {
  BIGNUM* bn = BN_new();
  if (bn == nullptr)
    fail("serial");
  // 127 random bits, top bit clear: a positive serial of at most 16 bytes.
  const bool ok = BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
                  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr;
  BN_free(bn);
  if (!ok)
    fail("serial");
}

}  // namespace

SelfSignedIdentity generate_self_signed() {
  SelfSignedIdentity id;
  id.key.reset(EVP_EC_gen("P-256"));
  if (!id.key)
    fail("key");
  id.certificate.reset(X509_new());
  X509* cert = id.certificate.get();
  if (cert == nullptr)
    fail("certificate");
  if (X509_set_version(cert, 2) != 1)
    fail("version");
  set_random_serial(cert);
  if (X509_gmtime_adj(X509_getm_notBefore(cert), -kValidBeforeNowSeconds) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert), kValidDays * 24 * 3600) == nullptr) {
    fail("validity");
  }
  X509_NAME* name = X509_get_subject_name(cert);
  const auto add_name = [name](const char* field, const char* value) {
    if (X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(value), -1, -1, 0) != 1) {
      fail("subject");
    }
  };
  add_name("O", "hami-scheduler development");
  add_name("CN", "localhost");
  if (X509_set_issuer_name(cert, name) != 1)
    fail("issuer");
  if (X509_set_pubkey(cert, id.key.get()) != 1)
    fail("public key");
  add_extension(cert, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  add_extension(cert, NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert, NID_key_usage, "critical,digitalSignature");
  add_extension(cert, NID_ext_key_usage, "serverAuth");
  add_extension(cert, NID_subject_key_identifier, "hash");
  if (X509_sign(cert, id.key.get(), EVP_sha256()) <= 0)
    fail("signature");
  return id;
}

}  // namespace hami::server
