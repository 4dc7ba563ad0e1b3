// The partial results of a training study, so that an interrupted study
// can continue where it stopped (`collsim run STUDY --out FILE --resume`).
//
// While a study runs with --out FILE, every completed point is appended to
// FILE.partial as one JSON line (its key and its full result); the first
// line holds the study's fingerprint (scenario text, --set, HCCL settings,
// seed, collsim version). When the study completes, FILE is written and the
// journal removed; when it is interrupted, the journal stays. --resume reads
// it back, refuses it if the fingerprint differs, and runs only the points
// it lacks. A torn last line (the process died mid-write) is ignored.
#pragma once

#include <map>
#include <string>

#include "sim/cli/training_report.h"

namespace collsim {

class StudyJournal {
public:
  // Starts FILE.partial afresh, or (`resume`) continues it. Throws UsageError.
  StudyJournal(const std::string& path, const std::string& fingerprint, bool resume);
  ~StudyJournal();
  StudyJournal(const StudyJournal&) = delete;
  StudyJournal& operator=(const StudyJournal&) = delete;

  // The points read back by --resume, by key.
  const std::map<std::string, TrainingPoint>& recovered() const { return recovered_; }
  void append(const std::string& key, const TrainingPoint& point);
  // The study completed: the journal is no longer needed.
  void finish();
  const std::string& path() const { return path_; }

private:
  std::string path_;
  int fd_ = -1;
  std::map<std::string, TrainingPoint> recovered_;
};

// A point's result as JSON and back, exactly (times in picoseconds).
std::string trainingPointRecord(const TrainingPoint& p);
TrainingPoint trainingPointFromRecord(const std::string& json);

} // namespace collsim
