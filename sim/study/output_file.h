// Result files written safely: checked before any work, written only when
// everything succeeded, never half-written, never replacing what is not a
// regular file.
//
// A regular file (or a new one) is written to a temporary file created
// exclusively (mkstemp) in the same folder and renamed over it, so readers
// see the old or the new content, never a mix, and a planted `PATH.tmp`
// symlink is never followed. A symlink to a regular file replaces its
// target. A character device, a FIFO or the standard streams (`/dev/stdout`,
// `/dev/fd/N`) are written straight into. A folder, a socket, a block device
// or a dangling symlink is refused up front, naming the option, and so is
// a file the command has read (its scenario, cluster, ...): up front for
// what it read before, and again before writing for what it read since.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace collsim {

class OutputFile {
public:
  // Checks `path` for `option` ("--out"); throws UsageError (exit 2).
  static OutputFile check(const std::string& option, const std::string& path);
  const std::string& path() const { return path_; }
  // Where a study keeps its partial results beside this file ("" for a stream).
  std::string journalPath() const { return stream_ ? "" : target_ + ".partial"; }
  // Both name one file (its folder and name after symlinks; streams never
  // count: /dev/stdout twice is fine).
  bool sameFileAs(const OutputFile& other) const;

private:
  friend void writeOutputFiles(const std::vector<std::pair<OutputFile, std::string>>& files);
  std::string option_, path_;
  std::string target_;   // the file to replace or create (symlinks resolved)
  bool stream_ = false;  // write straight into it
};

// Throws UsageError when `path` is a file this command has read
// (inputs_read.h): no output replaces an input.
void refuseIfInput(const std::string& option, const std::string& path);

// write(2) until all of `content` is written (or an error): false on error.
bool writeFully(int fd, const std::string& content);

// Writes every file or none: all temporary files first, then the streams,
// then the renames. Throws UsageError naming the option and the reason.
void writeOutputFiles(const std::vector<std::pair<OutputFile, std::string>>& files);

} // namespace collsim
