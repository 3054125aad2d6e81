#include "webhook_tls/bundle_check.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>

#include "webhook_tls/pem_objects.hpp"

namespace hami::webhook_tls {
namespace {

std::string asn1_time_text(const ASN1_TIME* t) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1)
    return "unreadable time";
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

std::string ip_text(const unsigned char* bytes, int length) {
  std::array<char, INET6_ADDRSTRLEN> buf{};
  const int family = length == 4 ? AF_INET : length == 16 ? AF_INET6 : 0;
  if (family == 0 || inet_ntop(family, bytes, buf.data(), buf.size()) == nullptr)
    return "<" + std::to_string(length) + "-byte address>";
  return buf.data();
}

std::string canonical_ip(const std::string& text) {
  std::array<unsigned char, 16> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1)
    return ip_text(bytes.data(), 4);
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1)
    return ip_text(bytes.data(), 16);
  return text;
}

std::string list_text(const ServingNames& names) {
  std::string out = "[";
  for (const auto& n : names.dns)
    out += (out.size() > 1 ? ", " : "") + n;
  for (const auto& n : names.ip)
    out += (out.size() > 1 ? ", " : "") + n;
  return out + "]";
}

ServingNames names_of(X509* cert) {
  ServingNames out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr)
    return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      const ASN1_IA5STRING* s = name->d.dNSName;
      out.dns.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                           static_cast<size_t>(ASN1_STRING_length(s)));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* s = name->d.iPAddress;
      out.ip.push_back(ip_text(ASN1_STRING_get0_data(s), ASN1_STRING_length(s)));
    }
  }
  GENERAL_NAMES_free(names);
  return normalized(std::move(out));
}

// "" when `cert` is valid at `now` and still at now + renew_before.
std::string validity_problem(X509* cert, const char* what, std::chrono::seconds renew_before,
                             std::time_t now) {
  if (X509_cmp_time(X509_get0_notBefore(cert), &now) > 0)
    return std::string(what) + " is not valid yet (notBefore " +
           asn1_time_text(X509_get0_notBefore(cert)) + ")";
  std::time_t limit = now + static_cast<std::time_t>(renew_before.count());
  if (X509_cmp_time(X509_get0_notAfter(cert), &limit) <= 0) {
    return std::string(what) + " expires within " + std::to_string(renew_before.count() / 86400) +
           " days (notAfter " + asn1_time_text(X509_get0_notAfter(cert)) + ")";
  }
  return "";
}

// "" when the CA can sign new serving certificates.
std::string ca_problem(X509* ca, EVP_PKEY* ca_key, std::chrono::seconds renew_before,
                       std::time_t now) {
  if (ca == nullptr)
    return "ca.crt is missing or does not parse";
  if (X509_check_ca(ca) != 1)
    return "ca.crt is not a CA certificate";
  if (auto p = validity_problem(ca, "CA certificate", renew_before, now); !p.empty())
    return p;
  if (ca_key == nullptr)
    return "ca.key is missing or does not parse";
  const bool match = X509_check_private_key(ca, ca_key) == 1;
  ERR_clear_error();
  return match ? "" : "ca.key does not match ca.crt";
}

// "" when the serving certificate can be kept.
std::string leaf_problem(const TlsBundle& bundle, X509* ca, const ServingNames& want,
                         std::chrono::seconds renew_before, std::time_t now) {
  if (ca == nullptr)
    return "ca.crt is missing or does not parse";
  const auto leaf = read_certificate(bundle.cert_pem);
  if (!leaf)
    return "tls.crt is missing or does not parse";
  const auto key = read_private_key(bundle.key_pem);
  if (!key)
    return "tls.key is missing or does not parse";
  const bool match = X509_check_private_key(leaf.get(), key.get()) == 1;
  ERR_clear_error();
  if (!match)
    return "tls.key does not match tls.crt";
  EVP_PKEY* ca_public = X509_get0_pubkey(ca);
  const bool signed_by_ca = X509_check_issued(ca, leaf.get()) == X509_V_OK &&
                            ca_public != nullptr && X509_verify(leaf.get(), ca_public) == 1;
  ERR_clear_error();
  if (!signed_by_ca)
    return "tls.crt is not signed by ca.crt";
  if (X509_check_purpose(leaf.get(), X509_PURPOSE_SSL_SERVER, 0) != 1) {
    ERR_clear_error();
    return "tls.crt is not a serving certificate (extendedKeyUsage serverAuth)";
  }
  if (auto p = validity_problem(leaf.get(), "serving certificate", renew_before, now); !p.empty())
    return p;
  const ServingNames has = names_of(leaf.get());
  if (has.dns != want.dns || has.ip != want.ip)
    return "serving certificate names differ: has " + list_text(has) + ", want " + list_text(want);
  return "";
}

}  // namespace

ServingNames normalized(ServingNames names) {
  for (auto& ip : names.ip)
    ip = canonical_ip(ip);
  for (auto* list : {&names.dns, &names.ip}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return names;
}

ServingNames certificate_names(const std::string& cert_pem) {
  const auto cert = read_certificate(cert_pem);
  return cert ? names_of(cert.get()) : ServingNames{};
}

BundleVerdict check_bundle(const TlsBundle& bundle, const ServingNames& names,
                           std::chrono::seconds renew_before, std::time_t now) {
  const ServingNames want = normalized(names);
  const auto ca = read_certificate(bundle.ca_pem);
  if (!ca)
    return {BundleAction::new_ca, "ca.crt is missing or does not parse"};
  const auto ca_key = read_private_key(bundle.ca_key_pem);
  const std::string leaf = leaf_problem(bundle, ca.get(), want, renew_before, now);
  // A CA that is not valid beyond the window must be replaced even while
  // the serving certificate still is: it would outlive it.
  const std::string ca_issue = validity_problem(ca.get(), "CA certificate", renew_before, now);
  if (leaf.empty() && ca_issue.empty())
    return {BundleAction::keep, ""};
  const std::string ca_reason = ca_problem(ca.get(), ca_key.get(), renew_before, now);
  if (ca_reason.empty())
    return {BundleAction::reissue_leaf, leaf};
  return {BundleAction::new_ca, leaf.empty() ? ca_reason : leaf + "; " + ca_reason};
}

}  // namespace hami::webhook_tls
