// Reading an input file (scenario, cluster, model, rules, grid, env file,
// measured log) with errors a user can act on.
//
// Only regular files are read: a folder, a device (/dev/zero would never
// end), a FIFO or a socket is refused by name, and so is a file larger than
// any collsim input (16 MiB). The text must be UTF-8 without NUL bytes; the
// first invalid byte is reported by line and column, and the content of a
// file that is not text is never quoted. Throws ConfigError.
#pragma once

#include <string>

namespace collsim {

inline constexpr std::size_t kMaxInputFileBytes = std::size_t(16) << 20;

// `role` names the file in messages ("scenario file", "--env-file");
// `maxBytes` is larger for the inputs that are (profiles).
std::string readInputFile(const std::string& path, const std::string& role, std::size_t maxBytes = kMaxInputFileBytes);

// Throws ConfigError "file:line:col: ..." at the first byte of `text` that is
// not UTF-8 or is a NUL.
void checkUtf8Text(const std::string& text, const std::string& file);

} // namespace collsim
