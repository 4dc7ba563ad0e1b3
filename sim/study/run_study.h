// A study's points, run: all collectives (one table of every point's runs)
// or all training steps (one report). A training study may keep a journal
// (FILE.partial): each point is written to it as it completes, and a study
// run again with `resume` reads back the points the journal holds and runs
// only the others. The command line plans the outputs and formats the
// report; this is the study's part.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/report/training_report.h"
#include "sim/study/collective_study.h"
#include "sim/study/execute.h"

namespace collsim {

class StudyJournal;

struct StudyRunOptions {
  ExecuteOptions execute;
  std::string journalPath; // "" : no journal (no --out FILE)
  std::string fingerprint; // the study's identity, which the journal must match
  bool resume = false;
  std::ostream* notices = nullptr; // "resuming: ...", a journal that cannot be written
  // Asked with the training steps' estimate before they run; false: stop
  // there (--estimate printed it). A collective study's points are checked
  // before they are read, by the caller.
  std::function<bool(const std::function<WorkEstimate(const WorkLimits*)>&)> approve;
};

struct StudyRun {
  std::optional<CollectiveStudyReport> collectives;
  std::optional<TrainingReport> training; // neither: the estimate was not approved
  std::unique_ptr<StudyJournal> journal;  // open until finish()
  StudyRun();
  StudyRun(StudyRun&&) noexcept;
  ~StudyRun();
  std::size_t failed() const;
  std::size_t total() const;
  // The report is written: the journal is no longer needed.
  void finish();
};

// Throws InputError when no point could run (the study itself is wrong),
// UsageError for a resume that cannot be.
StudyRun runStudy(const std::vector<Scenario>& study, const std::string& command, const StudyRunOptions& options);

} // namespace collsim
