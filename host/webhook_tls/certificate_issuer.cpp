#include "webhook_tls/certificate_issuer.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "webhook_tls/pem_objects.hpp"

namespace hami::webhook_tls {
namespace {

constexpr long kValidBeforeNowSeconds = 3600;

[[noreturn]] void fail(const std::string& what, const char* step) {
  throw IssueError("cannot issue the " + what + " (" + step + "): " + server::openssl_errors());
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value, const std::string& what) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr)
    fail(what, "extension");
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1)
    fail(what, "extension");
}

// A version 3 certificate with a random serial, the validity window and
// subject O=hami-scheduler, CN=`common_name`, for `key`.
server::X509Ptr new_certificate(const std::string& common_name, EVP_PKEY* key, std::time_t now,
                                int days, const std::string& what) {
  server::X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1)
    fail(what, "certificate");
  BIGNUM* bn = BN_new();
  const bool serial_ok = bn != nullptr &&
                         BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
                         BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr;
  BN_free(bn);
  if (!serial_ok)
    fail(what, "serial");
  if (X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, -kValidBeforeNowSeconds, &now) ==
          nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, &now) == nullptr) {
    fail(what, "validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  const auto add_name = [&](const char* field, const std::string& value) {
    if (X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                   0) != 1) {
      fail(what, "subject");
    }
  };
  add_name("O", "hami-scheduler");
  // CN is limited to 64 characters; the names are in subjectAltName.
  add_name("CN", common_name.substr(0, 64));
  if (X509_set_pubkey(cert.get(), key) != 1)
    fail(what, "public key");
  return cert;
}

server::EvpPkeyPtr new_key(const std::string& what) {
  server::EvpPkeyPtr key(EVP_EC_gen("P-256"));
  if (!key)
    fail(what, "key");
  return key;
}

std::string alt_names(const ServingNames& names) {
  std::string out;
  for (const auto& dns : names.dns)
    out += (out.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : names.ip)
    out += (out.empty() ? "IP:" : ",IP:") + ip;
  return out;
}

}  // namespace

IssuedCa issue_ca(const std::string& common_name, int days, std::time_t now) {
  const std::string what = "CA certificate";
  auto key = new_key(what);
  auto cert = new_certificate(common_name, key.get(), now, days, what);
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())) != 1)
    fail(what, "issuer");
  add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0", what);
  add_extension(cert.get(), cert.get(), NID_key_usage,
                "critical,keyCertSign,cRLSign,digitalSignature", what);
  add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash", what);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0)
    fail(what, "signature");
  return {server::certificate_pem(cert.get()), private_key_pem(key.get())};
}

TlsBundle issue_serving(const std::string& ca_cert_pem, const std::string& ca_key_pem,
                        const ServingNames& names, int days, std::time_t now) {
  const std::string what = "serving certificate";
  const auto ca = read_certificate(ca_cert_pem);
  const auto ca_key = read_private_key(ca_key_pem);
  if (!ca || !ca_key)
    throw IssueError(
        "cannot issue the serving certificate: the CA certificate or key does not parse");
  if (X509_check_private_key(ca.get(), ca_key.get()) != 1) {
    ERR_clear_error();
    throw IssueError("cannot issue the serving certificate: the CA key does not match the CA");
  }
  if (names.dns.empty() && names.ip.empty())
    throw IssueError("cannot issue the serving certificate: no DNS name or IP address");
  auto key = new_key(what);
  const std::string common_name = names.dns.empty() ? names.ip.front() : names.dns.front();
  auto cert = new_certificate(common_name, key.get(), now, days, what);
  // Never past the CA's end: a client would reject the chain then anyway.
  if (X509_cmp_time(X509_get0_notAfter(ca.get()), &now) > 0 &&
      ASN1_TIME_compare(X509_get0_notAfter(ca.get()), X509_get0_notAfter(cert.get())) < 0) {
    if (X509_set1_notAfter(cert.get(), X509_get0_notAfter(ca.get())) != 1)
      fail(what, "validity");
  }
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get())) != 1)
    fail(what, "issuer");
  add_extension(cert.get(), ca.get(), NID_subject_alt_name, alt_names(names).c_str(), what);
  add_extension(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE", what);
  add_extension(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature", what);
  add_extension(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth", what);
  add_extension(cert.get(), ca.get(), NID_subject_key_identifier, "hash", what);
  add_extension(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always", what);
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) <= 0)
    fail(what, "signature");
  TlsBundle out;
  out.cert_pem = server::certificate_pem(cert.get());
  out.key_pem = private_key_pem(key.get());
  out.ca_pem = ca_cert_pem;
  out.ca_key_pem = ca_key_pem;
  return out;
}

}  // namespace hami::webhook_tls
