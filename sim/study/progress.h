// A progress line for long runs on a terminal: a bar, the count, the time
// so far and an estimate of what is left, rewritten in place.
#pragma once

#include <algorithm>
#include <chrono>
#include <ostream>
#include <string>

namespace collsim {

class ProgressLine {
public:
  ProgressLine(std::ostream* out, std::size_t total, std::string what)
      : out_(out), total_(total), what_(std::move(what)), started_(std::chrono::steady_clock::now()) {}

  // `done` items are finished; `current` says what runs now (may be empty).
  void show(std::size_t done, const std::string& current = "") const {
    if (total_ == 0) return;
    render(double(done) / double(total_), std::to_string(done) + "/" + std::to_string(total_) + " ", current);
  }
  // For work measured by a share done (0 to 1), not a count of items: a
  // search under a budget.
  void showShare(double share, const std::string& current = "") const {
    share = std::clamp(share, 0.0, 1.0);
    render(share, std::to_string(int(share * 100)) + " % ", current);
  }
  void clear() const {
    if (out_) *out_ << "\r" << std::string(100, ' ') << "\r" << std::flush;
  }

private:
  void render(double share, const std::string& count, const std::string& current) const {
    if (!out_) return;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const std::size_t width = 20, filled = std::size_t(double(width) * share + 1e-9);
    std::string line = "\r[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + count + what_ +
                       ", " + std::to_string(int(elapsed)) + " s";
    if (share > 0 && share < 1) line += ", about " + std::to_string(int(elapsed / share * (1 - share) + 0.5)) + " s left";
    if (!current.empty()) line += " (" + current + ")";
    *out_ << line << "   " << std::flush;
  }

  std::ostream* out_;
  std::size_t total_;
  std::string what_;
  std::chrono::steady_clock::time_point started_;
};

} // namespace collsim
