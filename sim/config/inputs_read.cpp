#include "sim/config/inputs_read.h"

#include <algorithm>
#include <mutex>

#include <sys/stat.h>

namespace collsim {
namespace {

std::mutex mutex;
std::vector<InputRead> inputs; // guarded by mutex

} // namespace

void recordInputRead(InputRead input) {
  std::lock_guard lock(mutex);
  auto same = [&](const InputRead& r) { return r.device == input.device && r.inode == input.inode; };
  if (auto it = std::find_if(inputs.begin(), inputs.end(), same); it != inputs.end()) it->hash = input.hash;
  else inputs.push_back(std::move(input));
}

std::vector<InputRead> inputsRead() {
  std::lock_guard lock(mutex);
  return inputs;
}

std::optional<InputRead> inputReadAt(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt; // a file not there was not read
  std::lock_guard lock(mutex);
  for (const InputRead& r : inputs)
    if (r.device == std::uint64_t(st.st_dev) && r.inode == std::uint64_t(st.st_ino)) return r;
  return std::nullopt;
}

void forgetInputsRead() {
  std::lock_guard lock(mutex);
  inputs.clear();
}

} // namespace collsim
