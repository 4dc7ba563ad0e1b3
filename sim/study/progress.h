// A progress line for long runs on a terminal: a bar, the count, the time
// so far and an estimate of what is left, rewritten in place.
#pragma once

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
    if (!out_ || total_ == 0) return;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const std::size_t width = 20, filled = width * done / total_;
    std::string line = "\r[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " +
                       std::to_string(done) + "/" + std::to_string(total_) + " " + what_ + ", " +
                       std::to_string(int(elapsed)) + " s";
    if (done > 0 && done < total_)
      line += ", about " + std::to_string(int(elapsed / double(done) * double(total_ - done) + 0.5)) + " s left";
    if (!current.empty()) line += " (" + current + ")";
    *out_ << line << "   " << std::flush;
  }
  void clear() const {
    if (out_) *out_ << "\r" << std::string(100, ' ') << "\r" << std::flush;
  }

private:
  std::ostream* out_;
  std::size_t total_;
  std::string what_;
  std::chrono::steady_clock::time_point started_;
};

} // namespace collsim
