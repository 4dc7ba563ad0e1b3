#include "sim/config/input_file.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/config/inputs_read.h"
#include "sim/core/fingerprint.h"
#include "sim/core/printable.h"
#include "sim/config/config_node.h"

namespace collsim {

void checkUtf8Text(const std::string& text, const std::string& file) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = text[i] == '\0' ? 0 : utf8SequenceLength(text, i);
    if (n == 0)
      throw ConfigError(printable(file) + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        (text[i] == '\0' ? ": a NUL byte: not a text file" : ": not UTF-8 text (invalid byte)"));
    if (text[i] == '\n') line++, column = 1;
    else column++;
    i += n;
  }
}

std::string readInputFile(const std::string& path, const std::string& role, std::size_t maxBytes) {
  std::string name = printable(path);
  auto refuse = [&](const std::string& why) { throw ConfigError(name + ": " + role + ": " + why); };
  if (path.empty()) throw ConfigError(role + ": the file name is empty");
  // Opened first, then examined, so the file checked is the file read.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) refuse(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) refuse(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse("is a directory");
  if (!S_ISREG(st.st_mode)) refuse("is not a regular file (a device, FIFO or socket)");
  const std::string most = std::to_string(maxBytes >> 20) + " MiB";
  if (std::size_t(st.st_size) > maxBytes)
    refuse("is " + std::to_string(st.st_size >> 20) + " MiB, larger than collsim reads (" + most + " at most)");
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, std::size_t(n));
    if (text.size() > maxBytes) refuse("grew past " + most + " while being read");
  }
  checkUtf8Text(text, path);
  char absolute[PATH_MAX];
  recordInputRead({path, ::realpath(path.c_str(), absolute) ? std::string(absolute) : path, role,
                   Fingerprint().add(text).hex(), std::uint64_t(st.st_dev), std::uint64_t(st.st_ino)});
  return text;
}

} // namespace collsim
