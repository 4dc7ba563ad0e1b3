// Temporary files that a signal must not leave behind. While output is
// staged (output_file.cpp writes every file into a temporary of its own
// folder, then renames), SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the
// staged temporaries and then end the process as the signal would have
// (its default action, re-raised). The handler only calls unlink and
// raise, which are async-signal-safe, on names copied in beforehand.
#pragma once

#include <csignal>
#include <string>

namespace collsim {

class TempFileGuard {
public:
  TempFileGuard();  // installs the handlers
  ~TempFileGuard(); // restores the ones before, and forgets the names
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  // mkstemp(templ) with the signals held back until the name is recorded,
  // so a signal between the file's creation and its recording cannot leave
  // it behind; the file descriptor, or -1 with errno set.
  int createTemp(char* templ);
  // It was renamed or removed: a signal leaves it alone.
  void clear();

  static constexpr int kMaxGuarded = 16;

private:
  // A temporary to remove on a signal (past the first kMaxGuarded: none).
  void add(const std::string& path);
  struct sigaction previous_[4] {};
};

} // namespace collsim
