#include "kube/kubeconfig.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "config/config_error.hpp"
#include "config/yaml_reader.hpp"
#include "kube/exec_token_source.hpp"
#include "platform/base64.hpp"

namespace hami::kube {
namespace {

using config::YamlReader;

constexpr std::string_view kUnsupportedAuth =
    "is not supported: use exec, a token or a client certificate";

// One kubeconfig being read: the YAML reader for shape errors and the
// prefix every message starts with.
class Document {
 public:
  explicit Document(const std::filesystem::path& file)
      : name_("kubeconfig " + file.string()), reader_(name_, file.parent_path()) {}

  const YamlReader& reader() const { return reader_; }
  const std::string& name() const { return name_; }

  [[noreturn]] void fail(std::string_view what) const {
    throw ApiConfigError(name_ + ": " + std::string(what));
  }

  // The entry of `list_key` (clusters, contexts, users) named `name`, and
  // its index for messages.
  std::pair<YAML::Node, size_t> find(const YAML::Node& root, std::string_view list_key,
                                     std::string_view kind, const std::string& name) const {
    const YAML::Node list = root[std::string(list_key)];
    if (list.IsDefined() && !list.IsNull()) {
      reader_.expect_sequence(list, list_key);
      for (size_t i = 0; i < list.size(); ++i) {
        const YAML::Node entry = list[i];
        const std::string path = std::string(list_key) + "[" + std::to_string(i) + "]";
        if (!entry.IsMap())
          reader_.fail(path, "expected a mapping, got " + config::describe_node(entry));
        const YAML::Node entry_name = entry["name"];
        if (entry_name.IsScalar() && entry_name.Scalar() == name)
          return {entry, i};
      }
    }
    fail(std::string(kind) + " \"" + name + "\" not found");
  }

  // An optional string key of `parent`; empty when absent or null.
  std::string optional_string(const YAML::Node& parent, std::string_view path,
                              std::string_view key) const {
    const YAML::Node node = parent[std::string(key)];
    if (!node.IsDefined() || node.IsNull())
      return {};
    return reader_.string(node, config::join_path(path, key), true);
  }

  // The contents of a file named by `key`, resolved against the
  // kubeconfig's folder.
  std::string file_contents(const YAML::Node& parent, std::string_view path,
                            std::string_view key) const {
    const std::string key_path = config::join_path(path, key);
    const std::filesystem::path file = reader_.path(parent[std::string(key)], key_path);
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    if (in)
      text << in.rdbuf();
    if (!in || in.bad())
      fail(key_path + ": cannot read " + file.string());
    std::string contents = std::move(text).str();
    if (contents.empty())
      fail(key_path + ": " + file.string() + " is empty");
    return contents;
  }

  // `<key>-data` (base64) or `<key>` (a file); empty when neither is set.
  std::string data_or_file(const YAML::Node& parent, std::string_view path,
                           std::string_view key) const {
    const std::string data_key = std::string(key) + "-data";
    const std::string data = optional_string(parent, path, data_key);
    if (!data.empty())
      return decode_base64(data, name_ + ": " + config::join_path(path, data_key));
    if (optional_string(parent, path, key).empty())
      return {};
    return file_contents(parent, path, key);
  }

 private:
  std::string name_;
  YamlReader reader_;
};

void read_cluster(const Document& doc, const YAML::Node& entry, size_t index, ApiConfig& out) {
  const std::string path = "clusters[" + std::to_string(index) + "].cluster";
  const YAML::Node cluster = entry["cluster"];
  if (!cluster.IsMap())
    doc.reader().fail(path, "expected a mapping, got " + config::describe_node(cluster));
  out.server = doc.optional_string(cluster, path, "server");
  if (out.server.empty())
    doc.fail(path + ".server is not set");
  if (out.server.rfind("https://", 0) != 0 && out.server.rfind("http://", 0) != 0)
    doc.fail(path + ".server: expected an https:// URL, got \"" + out.server + "\"");
  while (out.server.size() > 8 && out.server.back() == '/')
    out.server.pop_back();
  if (!doc.optional_string(cluster, path, "proxy-url").empty())
    doc.fail(path + ".proxy-url is not supported: reach the API server directly");
  out.ca_pem = doc.data_or_file(cluster, path, "certificate-authority");
  out.tls_server_name = doc.optional_string(cluster, path, "tls-server-name");
  const YAML::Node insecure = cluster["insecure-skip-tls-verify"];
  if (insecure.IsDefined() && !insecure.IsNull())
    out.insecure_skip_verify =
        doc.reader().boolean(insecure, config::join_path(path, "insecure-skip-tls-verify"));
}

// users[i].user.exec: a client-go credential plugin (exec_credential_source.hpp).
ExecPlugin read_exec(const Document& doc, const YAML::Node& exec, const std::string& path,
                     const std::string& user_name, const ApiConfig& cluster) {
  if (!exec.IsMap())
    doc.reader().fail(path, "expected a mapping, got " + config::describe_node(exec));
  ExecPlugin plugin;
  plugin.owner = doc.name() + " user \"" + user_name + "\"";
  plugin.api_version = doc.optional_string(exec, path, "apiVersion");
  if (plugin.api_version.empty()) {
    doc.fail(path + ".apiVersion is not set: use " + std::string(kExecApiV1) + " or " +
             std::string(kExecApiV1beta1));
  }
  if (plugin.api_version == "client.authentication.k8s.io/v1alpha1") {
    doc.fail(path + ".apiVersion " + plugin.api_version +
             " is no longer supported (as in client-go since 1.24): use " +
             std::string(kExecApiV1) + " or " + std::string(kExecApiV1beta1));
  }
  if (plugin.api_version != kExecApiV1 && plugin.api_version != kExecApiV1beta1) {
    doc.fail(path + ".apiVersion: expected " + std::string(kExecApiV1) + " or " +
             std::string(kExecApiV1beta1) + ", got \"" + plugin.api_version + "\"");
  }
  plugin.command = doc.optional_string(exec, path, "command");
  if (plugin.command.empty())
    doc.fail(path + ".command is not set");
  // As client-go: a command with a '/' is a path, relative to the
  // kubeconfig's folder; a bare name goes through $PATH.
  if (plugin.command.find('/') != std::string::npos)
    plugin.command = doc.reader().resolve(std::filesystem::path(plugin.command)).string();

  const YAML::Node args = exec["args"];
  if (args.IsDefined() && !args.IsNull()) {
    doc.reader().expect_sequence(args, config::join_path(path, "args"));
    for (size_t i = 0; i < args.size(); ++i) {
      plugin.args.push_back(doc.reader().string(
          args[i], config::join_path(path, "args") + "[" + std::to_string(i) + "]", true));
    }
  }
  const YAML::Node env = exec["env"];
  if (env.IsDefined() && !env.IsNull()) {
    doc.reader().expect_sequence(env, config::join_path(path, "env"));
    for (size_t i = 0; i < env.size(); ++i) {
      const std::string entry_path = config::join_path(path, "env") + "[" + std::to_string(i) + "]";
      if (!env[i].IsMap())
        doc.reader().fail(entry_path, "expected a mapping, got " + config::describe_node(env[i]));
      const std::string name = doc.optional_string(env[i], entry_path, "name");
      if (name.empty() || name.find('=') != std::string::npos)
        doc.fail(entry_path + ".name: expected a variable name without '='");
      plugin.env.emplace_back(name, doc.optional_string(env[i], entry_path, "value"));
    }
  }
  plugin.install_hint = doc.optional_string(exec, path, "installHint");

  // This process never has a terminal: a plugin that insists on one cannot
  // work. v1 requires the mode; v1beta1 defaults to IfAvailable.
  const YAML::Node mode = exec["interactiveMode"];
  std::string interactive;
  if (mode.IsDefined() && !mode.IsNull()) {
    interactive = doc.reader().choice(mode, config::join_path(path, "interactiveMode"),
                                      {"Never", "IfAvailable", "Always"});
  } else if (plugin.api_version == kExecApiV1) {
    doc.fail(path + ".interactiveMode is not set (required by " + std::string(kExecApiV1) +
             "): use Never or IfAvailable");
  }
  if (interactive == "Always") {
    doc.fail(path +
             ".interactiveMode Always needs a terminal, which this program never has: use Never "
             "or IfAvailable");
  }

  const YAML::Node cluster_info = exec["provideClusterInfo"];
  if (cluster_info.IsDefined() && !cluster_info.IsNull() &&
      doc.reader().boolean(cluster_info, config::join_path(path, "provideClusterInfo"))) {
    plugin.cluster = ExecClusterInfo{cluster.server, cluster.ca_pem, cluster.tls_server_name,
                                     cluster.insecure_skip_verify};
  }
  return plugin;
}

void read_user(const Document& doc, const YAML::Node& entry, size_t index,
               const std::string& user_name, ApiConfig& out) {
  const std::string path = "users[" + std::to_string(index) + "].user";
  const YAML::Node user = entry["user"];
  if (user.IsNull() || !user.IsDefined())
    return;  // an anonymous user
  if (!user.IsMap())
    doc.reader().fail(path, "expected a mapping, got " + config::describe_node(user));
  const YAML::Node auth_provider = user["auth-provider"];
  if (auth_provider.IsDefined() && !auth_provider.IsNull())
    doc.fail(path + ".auth-provider " + std::string(kUnsupportedAuth));
  out.client_cert_pem = doc.data_or_file(user, path, "client-certificate");
  out.client_key_pem = doc.data_or_file(user, path, "client-key");
  if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
    doc.fail(path + (out.client_cert_pem.empty() ? ".client-key" : ".client-certificate") +
             " is set without " +
             (out.client_cert_pem.empty() ? "client-certificate" : "client-key"));
  }
  // As client-go: a token file wins over an inline token, since the file is
  // what gets rotated.
  const std::string token_file = doc.optional_string(user, path, "tokenFile");
  const std::string token = doc.optional_string(user, path, "token");
  if (!token_file.empty()) {
    const std::filesystem::path file = doc.reader().resolve(std::filesystem::path(token_file));
    try {
      out.token = std::make_shared<FileTokenSource>(file);
    } catch (const ApiConfigError& e) {
      doc.fail(path + ".tokenFile: " + e.what());
    }
  } else if (!token.empty()) {
    out.token = std::make_shared<StaticTokenSource>(token);
  }
  out.basic_username = doc.optional_string(user, path, "username");
  out.basic_password = doc.optional_string(user, path, "password");
  const YAML::Node exec = user["exec"];
  const bool has_exec = exec.IsDefined() && !exec.IsNull();
  if (has_exec) {
    // One way to authenticate: client-go's precedence between exec and
    // static credentials is subtle, so a mix is refused instead of guessed.
    const char* other = !token_file.empty()            ? "tokenFile"
                        : !token.empty()               ? "token"
                        : !out.client_cert_pem.empty() ? "client-certificate"
                        : !out.basic_username.empty()  ? "username"
                                                       : nullptr;
    if (other != nullptr)
      doc.fail(path + ".exec cannot be combined with " + path + "." + other + ": use one of them");
    out.exec_credentials = std::make_shared<ExecCredentialSource>(
        read_exec(doc, exec, path + ".exec", user_name, out));
    out.token = std::make_shared<ExecTokenSource>(out.exec_credentials);
  }
  // A credential on a plain-HTTP connection travels in clear: refused,
  // whatever the server (the cluster is read before the user).
  if (out.server.rfind("http://", 0) == 0) {
    const char* secret = has_exec                      ? "exec"
                         : !token_file.empty()         ? "tokenFile"
                         : !token.empty()              ? "token"
                         : !out.basic_password.empty() ? "password"
                                                       : nullptr;
    if (secret != nullptr) {
      doc.fail(path + "." + secret + ": credentials are never sent to an http:// server (" +
               out.server + "): use https://");
    }
  }
}

ApiConfig parse(const std::string& text, const std::filesystem::path& file,
                const std::string& wanted_context) {
  const Document doc(file);
  const YAML::Node root = doc.reader().parse(text);
  if (!root.IsMap())
    doc.reader().fail("", "expected a mapping at the top, got " + config::describe_node(root));
  std::string context_name = wanted_context;
  if (context_name.empty()) {
    context_name = doc.optional_string(root, "", "current-context");
    if (context_name.empty())
      doc.fail("current-context is not set and no context was given");
  }
  const auto [context_entry, context_index] = doc.find(root, "contexts", "context", context_name);
  const std::string context_path = "contexts[" + std::to_string(context_index) + "].context";
  const YAML::Node context = context_entry["context"];
  if (!context.IsMap())
    doc.reader().fail(context_path, "expected a mapping, got " + config::describe_node(context));

  ApiConfig out;
  const std::string cluster_name = doc.optional_string(context, context_path, "cluster");
  if (cluster_name.empty())
    doc.fail(context_path + ".cluster is not set");
  const auto [cluster_entry, cluster_index] = doc.find(root, "clusters", "cluster", cluster_name);
  read_cluster(doc, cluster_entry, cluster_index, out);

  const std::string user_name = doc.optional_string(context, context_path, "user");
  if (!user_name.empty()) {
    const auto [user_entry, user_index] = doc.find(root, "users", "user", user_name);
    read_user(doc, user_entry, user_index, user_name, out);
  }
  const std::string ns = doc.optional_string(context, context_path, "namespace");
  if (!ns.empty())
    out.namespace_ = ns;
  out.origin = "kubeconfig " + file.string() + " context " + context_name;
  return out;
}

}  // namespace

std::string decode_base64(std::string_view text, std::string_view what) {
  auto bytes = platform::base64_decode(text, platform::Base64Input::lenient);
  if (!bytes)
    throw ApiConfigError(std::string(what) + ": invalid base64");
  return std::move(*bytes);
}

ApiConfig parse_kubeconfig(const std::string& text, const std::filesystem::path& file,
                           const std::string& context) {
  try {
    return parse(text, file, context);
  } catch (const config::ConfigError& e) {
    throw ApiConfigError(e.what());
  } catch (const YAML::Exception& e) {
    throw ApiConfigError("kubeconfig " + file.string() + ": " + e.what());
  }
}

ApiConfig load_kubeconfig(const std::filesystem::path& file, const std::string& context) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in)
    text << in.rdbuf();
  if (!in || in.bad())
    throw ApiConfigError("kubeconfig " + file.string() + ": cannot be read");
  return parse_kubeconfig(std::move(text).str(), file, context);
}

}  // namespace hami::kube
