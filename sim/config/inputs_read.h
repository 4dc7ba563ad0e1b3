// Every file the running command has read (scenario, cluster, model,
// device, env file, measured log, profile), so that
//  - no output replaces one: `--out` naming the scenario, or a journal
//    FILE.partial that is the scenario itself, is refused before it is
//    written (the same file by device and inode: a symlink or another
//    hard link to an input is that input);
//  - `--resume` can tell that none of them changed since the partial
//    results were written, and name the one that did.
// readInputFile records each file it reads; a command starts with none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collsim {

struct InputRead {
  std::string path;     // as the command named it
  std::string absolute; // from the root, symlinks resolved
  std::string role;     // "scenario file", "--env-file", ...
  std::string hash;     // Fingerprint of its content, as hex
  std::uint64_t device = 0, inode = 0;
};

// Thread-safe: study points may be read from several threads.
void recordInputRead(InputRead input);
// In the order first read, each file once (the last content read wins).
std::vector<InputRead> inputsRead();
// The input that `path` names (the same file), if the command read it.
std::optional<InputRead> inputReadAt(const std::string& path);
// A new command reads afresh (runCli calls it; so do tests).
void forgetInputsRead();

} // namespace collsim
