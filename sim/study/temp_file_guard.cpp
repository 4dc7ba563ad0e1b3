#include "sim/study/temp_file_guard.h"

#include <climits>
#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace collsim {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// The names, copied where the handler can read them without allocating.
char guarded[TempFileGuard::kMaxGuarded][PATH_MAX];
volatile sig_atomic_t guardedCount = 0;

void removeAndReraise(int signal) {
  for (int i = 0; i < guardedCount; ++i) ::unlink(guarded[i]);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

} // namespace

TempFileGuard::TempFileGuard() {
  guardedCount = 0;
  struct sigaction action {};
  action.sa_handler = removeAndReraise;
  sigemptyset(&action.sa_mask);
  for (int s : kSignals) sigaddset(&action.sa_mask, s); // one cleanup at a time
  for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &action, &previous_[i]);
}

TempFileGuard::~TempFileGuard() {
  for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  guardedCount = 0;
}

int TempFileGuard::createTemp(char* templ) {
  sigset_t held, before;
  sigemptyset(&held);
  for (int s : kSignals) sigaddset(&held, s);
  ::sigprocmask(SIG_BLOCK, &held, &before);
  int fd = ::mkstemp(templ);
  int err = errno;
  if (fd >= 0) add(templ);
  ::sigprocmask(SIG_SETMASK, &before, nullptr); // a signal that came meanwhile is handled here
  errno = err;
  return fd;
}

void TempFileGuard::add(const std::string& path) {
  if (guardedCount >= kMaxGuarded || path.size() >= PATH_MAX) return;
  std::memcpy(guarded[guardedCount], path.c_str(), path.size() + 1);
  guardedCount = guardedCount + 1; // after the name is in place
}

void TempFileGuard::clear() { guardedCount = 0; }

} // namespace collsim
