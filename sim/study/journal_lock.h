// The lock a study holds on its journal (FILE.partial) for as long as it
// runs: FILE.partial.lock, taken with flock(2) before the journal is read
// or replaced, so that of two runs with the same --out started together
// exactly one goes on and the other is refused at once, naming the first
// (whose process number the lock file holds). The lock file is removed
// when its holder ends; a holder killed outright leaves it, unlocked, for
// the next run to take.
#pragma once

#include <string>

namespace collsim {

class JournalLock {
public:
  // The lock of `journal` (its path + ".lock"). Throws UsageError when
  // another run holds it, or it cannot be made.
  explicit JournalLock(const std::string& journal);
  ~JournalLock();
  JournalLock(const JournalLock&) = delete;
  JournalLock& operator=(const JournalLock&) = delete;

private:
  std::string path_;
  int fd_ = -1;
};

} // namespace collsim
