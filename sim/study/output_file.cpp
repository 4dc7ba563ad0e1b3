#include "sim/study/output_file.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/config/inputs_read.h"
#include "sim/core/input_error.h"
#include "sim/study/temp_file_guard.h"

namespace collsim {
namespace {

[[noreturn]] void refuse(const std::string& option, const std::string& path, const std::string& why) {
  throw UsageError(option + " " + path + ": " + why);
}

std::string folderOf(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The standard streams and open descriptors are written into, whatever they
// lead to: replacing a regular file behind /dev/stdout would leave the shell
// writing to the old one.
bool isDescriptorPath(const std::string& p) {
  return p == "/dev/stdout" || p == "/dev/stderr" || p.rfind("/dev/fd/", 0) == 0 || p.rfind("/proc/self/fd/", 0) == 0;
}

} // namespace

void refuseIfInput(const std::string& option, const std::string& path) {
  if (auto input = inputReadAt(path))
    refuse(option, path, "is " + (input->path == path ? "" : input->path + ", ") + "the " + input->role +
                             " this run reads: an output never replaces an input; write it elsewhere");
}

bool writeFully(int fd, const std::string& content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    left -= std::size_t(n);
  }
  return true;
}

namespace {

struct Staged {
  std::string temp, target;
};

void removeStaged(const std::vector<Staged>& staged) {
  for (const auto& s : staged) ::unlink(s.temp.c_str());
}

} // namespace

OutputFile OutputFile::check(const std::string& option, const std::string& path) {
  if (path.empty()) throw UsageError(option + ": the file name is empty");
  OutputFile f;
  f.option_ = option;
  f.path_ = path;
  f.target_ = path;
  if (isDescriptorPath(path)) {
    f.stream_ = true;
    return f;
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) refuse(option, path, std::strerror(errno));
  } else if (S_ISLNK(st.st_mode)) {
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved)) refuse(option, path, std::string("a symbolic link that leads nowhere (") + std::strerror(errno) + ")");
    f.target_ = resolved;
    if (::stat(resolved, &st) != 0) refuse(option, path, std::strerror(errno));
  }
  bool exists = ::stat(f.target_.c_str(), &st) == 0;
  if (exists) {
    if (S_ISDIR(st.st_mode)) refuse(option, path, "is a directory");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      f.stream_ = true;
      if (::access(f.target_.c_str(), W_OK) != 0) refuse(option, path, std::strerror(errno));
      return f;
    }
    if (!S_ISREG(st.st_mode)) refuse(option, path, "is neither a regular file nor a character device or FIFO");
    refuseIfInput(option, path);
  }
  // A new or replaced regular file: its folder must take a new file.
  std::string folder = folderOf(f.target_);
  struct stat dir {};
  if (::stat(folder.c_str(), &dir) != 0) refuse(option, path, "folder " + folder + ": " + std::strerror(errno));
  if (!S_ISDIR(dir.st_mode)) refuse(option, path, folder + " is not a directory");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) refuse(option, path, "folder " + folder + ": " + std::strerror(errno));
  if (nameOf(f.target_).size() > NAME_MAX) refuse(option, path, std::strerror(ENAMETOOLONG));
  return f;
}

bool OutputFile::sameFileAs(const OutputFile& other) const {
  if (stream_ || other.stream_) return false;
  auto folder = [](const std::string& target) {
    char resolved[PATH_MAX];
    std::string f = folderOf(target);
    return ::realpath(f.c_str(), resolved) ? std::string(resolved) : f;
  };
  return nameOf(target_) == nameOf(other.target_) && folder(target_) == folder(other.target_);
}

void writeOutputFiles(const std::vector<std::pair<OutputFile, std::string>>& files) {
  std::vector<Staged> staged;
  TempFileGuard guard; // a signal while files are staged removes them
  auto fail = [&](const OutputFile& f, const std::string& why) {
    removeStaged(staged);
    refuse(f.option_, f.path_, why);
  };
  // 0. None of them an input: some are read after the outputs are checked
  // (a variant's cluster file, read as its point runs).
  for (const auto& [f, content] : files)
    if (!f.stream_) refuseIfInput(f.option_, f.path_);
  // 1. Every regular file into a temporary file of its own folder.
  for (const auto& [f, content] : files) {
    if (f.stream_) continue;
    std::string name = nameOf(f.target_);
    std::string folder = folderOf(f.target_);
    if (name.size() + 9 > NAME_MAX) name = "collsim";
    std::string templ = folder + "/." + name + ".XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    int fd = guard.createTemp(buf.data());
    if (fd < 0) fail(f, std::string("cannot create a temporary file in ") + folder + ": " + std::strerror(errno));
    staged.push_back({buf.data(), f.target_});
    // Keep an existing file's permissions; a new one gets the usual 0666 less the umask.
    struct stat st {};
    mode_t mode;
    if (::stat(f.target_.c_str(), &st) == 0) {
      mode = st.st_mode & 07777;
    } else {
      mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
    bool ok = ::fchmod(fd, mode) == 0 && writeFully(fd, content) && ::fsync(fd) == 0;
    int err = errno;
    ok = (::close(fd) == 0) && ok;
    if (!ok) fail(f, std::string("cannot write: ") + std::strerror(err));
  }
  // 2. Streams and devices, straight.
  for (const auto& [f, content] : files) {
    if (!f.stream_) continue;
    int fd = ::open(f.target_.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) fail(f, std::strerror(errno));
    bool ok = writeFully(fd, content);
    int err = errno;
    ::close(fd);
    if (!ok) fail(f, std::string("cannot write: ") + std::strerror(err));
  }
  // 3. The renames, each atomic.
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (::rename(staged[i].temp.c_str(), staged[i].target.c_str()) != 0) {
      int err = errno;
      removeStaged({staged.begin() + long(i), staged.end()});
      throw UsageError("cannot replace " + staged[i].target + ": " + std::strerror(err));
    }
  }
  guard.clear();
}

} // namespace collsim
