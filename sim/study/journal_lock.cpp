#include "sim/study/journal_lock.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/input_error.h"
#include "sim/study/output_file.h"

namespace collsim {
namespace {

// The holder's process number as it wrote it, or "" (it has not yet).
std::string holderOf(int fd) {
  char text[32] = {};
  ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid = n > 0 ? std::string(text, std::size_t(n)) : "";
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

} // namespace

JournalLock::JournalLock(const std::string& journal) : path_(journal + ".lock") {
  // A holder ending between our open and our flock removes the file we
  // locked: a lock on a removed file guards nothing, so take it again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) throw UsageError("cannot lock the partial results " + journal + " (" + path_ + ": " + std::strerror(errno) + ")");
    struct stat held {}, named {};
    if (::fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
      ::close(fd);
      throw UsageError(path_ + ": the partial results' lock is not a regular file");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = holderOf(fd);
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw UsageError(journal + ": another collsim run (" + (holder.empty() ? "starting" : "process " + holder) +
                         ") is writing these partial results; wait for it, or give another --out");
      throw UsageError("cannot lock the partial results " + journal + ": " + std::strerror(err));
    }
    if (::lstat(path_.c_str(), &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino) {
      const std::string pid = std::to_string(::getpid());
      if (::ftruncate(fd, 0) != 0 || !writeFully(fd, pid)) {
        ::close(fd);
        throw UsageError("cannot lock the partial results " + journal + ": " + std::strerror(errno));
      }
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
  throw UsageError("cannot lock the partial results " + journal + ": its lock file keeps changing");
}

JournalLock::~JournalLock() {
  // Removed while still held: a run waiting for it finds it gone and makes its own.
  ::unlink(path_.c_str());
  ::close(fd_);
}

} // namespace collsim
