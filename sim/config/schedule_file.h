// Schedule files: an algorithm as data, written by `collsim schedule` and
// run as `--algo file:PATH` (algorithms/core/chunked_schedule.h says what
// a chunk is). The form, JSON (which the YAML reader also takes):
//
//   {"collsim_schedule": 1, "name": "ring", "collective": "allreduce",
//    "ranks": 4, "chunks": 4,
//    "program": [
//      {"rank": 0, "stream": 0, "steps": [
//        [["send", 1, 0], ["recv_reduce", 3, 3]],
//        ...]},
//      ...]}
//
// An operation is [kind, peer, first chunk] or [kind, peer, first chunk,
// chunks] for send, recv and recv_reduce (peer: the other rank), and
// ["wait", stream, steps] (until that stream of the rank has completed that
// many steps). "root" names Broadcast's and Reduce's root. Each (rank,
// stream) appears at most once; a rank without an entry has no steps there.
//
// Reading checks every value with its file:line:column, and then runs the
// symbolic checker on the schedule with one element per chunk: a schedule
// that does not compute its collective, deadlocks or races is refused
// before it runs.
#pragma once

#include <memory>
#include <string>

#include "algorithms/core/chunked_schedule.h"

namespace collsim {

// As many values as any collsim YAML file may hold (config_node.cpp): about
// 20,000 operations.
inline constexpr std::size_t kMaxScheduleFileValues = 100'000;

// Throws ConfigError (located) for a file that is not a correct schedule.
std::shared_ptr<const ChunkedSchedule> readScheduleFile(const std::string& path);
// The same for a file's text (`path` names it in messages).
std::shared_ptr<const ChunkedSchedule> readScheduleText(const std::string& text, const std::string& path);

// Why a schedule of `ranks` ranks cut into `chunks` chunks cannot be a
// file (more than the symbolic checker holds when it is read), or "".
std::string scheduleFileTooLarge(int ranks, int chunks);

// The file's text; throws InputError when it would hold more values than
// a schedule file may.
std::string scheduleFileText(const ChunkedSchedule& s);

// Makes "file:PATH" an algorithm name everywhere (findAlgorithm); a file is
// read and checked once per process. Call once when a command line starts.
void registerScheduleFiles();

} // namespace collsim
