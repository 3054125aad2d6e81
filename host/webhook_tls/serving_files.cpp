#include "webhook_tls/serving_files.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hami::webhook_tls {
namespace {

std::string error_text() {
  return std::strerror(errno);
}

// Writes `content` to `file` through `file`.tmp and a rename.
void replace_file(const std::filesystem::path& file, const std::string& content, mode_t mode) {
  const std::filesystem::path temp = file.string() + ".tmp";
  ::unlink(temp.c_str());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    throw std::runtime_error("cannot write \"" + temp.string() + "\": " + error_text());
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const std::string why = error_text();
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("cannot write \"" + temp.string() + "\": " + why);
    }
    done += static_cast<size_t>(n);
  }
  // The umask must not widen or narrow what the file should be.
  const bool ok = ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  const std::string why = ok ? "" : error_text();
  if (::close(fd) != 0 || !ok) {
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot write \"" + temp.string() +
                             "\": " + (why.empty() ? error_text() : why));
  }
  if (::rename(temp.c_str(), file.c_str()) != 0) {
    const std::string reason = error_text();
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot replace \"" + file.string() + "\": " + reason);
  }
}

}  // namespace

ServingFiles::ServingFiles(std::filesystem::path directory) {
  if (directory.empty()) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "hami-scheduler-tls-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("cannot create a private folder \"" + tmpl + "\": " + error_text());
    directory_ = tmpl;
    owned_ = true;
    return;
  }
  directory_ = std::move(directory);
  if (::mkdir(directory_.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create \"" + directory_.string() + "\": " + error_text());
  struct stat st {};
  if (::stat(directory_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::runtime_error("\"" + directory_.string() + "\" is not a folder");
}

ServingFiles::~ServingFiles() {
  if (owned_) {
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }
}

void ServingFiles::write(const TlsBundle& bundle) const {
  replace_file(ca_file(), bundle.ca_pem, 0644);
  replace_file(key_file(), bundle.key_pem, 0600);
  replace_file(cert_file(), bundle.cert_pem, 0644);
}

}  // namespace hami::webhook_tls
