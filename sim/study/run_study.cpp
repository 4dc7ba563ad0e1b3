#include "sim/study/run_study.h"

#include <algorithm>

#include "sim/config/config_node.h"
#include "sim/config/inputs_read.h"
#include "sim/core/input_error.h"
#include "sim/study/execute_training.h"
#include "sim/study/study_journal.h"

namespace collsim {
namespace {

// The journal's points that are this study's, as hooks for the run; each
// completed point is written to the journal.
TrainingRunHooks journalHooks(StudyJournal& journal, const std::vector<TrainingJob>& jobs, const StudyRunOptions& o) {
  TrainingRunHooks hooks;
  int misfits = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (auto it = journal.recovered().find(trainingPointKey(jobs[i])); it != journal.recovered().end()) {
      // A record of another cluster than its point's is not its result: it runs again.
      if (jobs[i].scenario->cluster.ranks() != it->second.step.ranks) {
        ++misfits;
        continue;
      }
      hooks.done[i] = it->second;
    }
  if (o.resume && o.notices) {
    const int dropped = journal.skipped() + misfits;
    *o.notices << "collsim: resuming: " << hooks.done.size() << " of " << jobs.size() << " points read from "
               << journal.path()
               << (dropped > 0 ? " (" + std::to_string(dropped) + " damaged record(s) dropped: they run again)" : "")
               << "\n";
  }
  hooks.completed = [&journal, &jobs, notices = o.notices](std::size_t i, const TrainingPoint& p) {
    if (p.failed()) return;
    if (std::string failure = journal.append(trainingPointKey(jobs[i]), p); !failure.empty() && notices)
      *notices << "collsim: warning: " << failure << "\n";
  };
  return hooks;
}

StudyRun runTrainingStudy(const std::vector<Scenario>& study, const std::string& command, const StudyRunOptions& o) {
  StudyRun run;
  // Every point's own estimate: one past the clock fails alone.
  std::vector<TrainingJob> jobs = trainingJobs(study);
  if (o.approve && !o.approve([&](const WorkLimits* stop) { return estimateTrainingJobs(jobs, stop); })) return run;
  if (o.resume && o.journalPath.empty()) throw UsageError("--resume needs --out FILE (the partial results are FILE.partial)");
  TrainingRunHooks hooks;
  if (!o.journalPath.empty()) {
    // Every file the study read (its points are loaded) stamps the journal.
    run.journal = std::make_unique<StudyJournal>(o.journalPath, o.fingerprint, o.resume, inputsRead());
    hooks = journalHooks(*run.journal, jobs, o);
  }
  run.training = executeTrainingJobs(jobs, command, o.execute, hooks);
  // No point ran: the study itself is wrong (exit 2, nothing written).
  if (!run.training->points.empty() && run.training->failedPoints() == run.training->points.size()) {
    run.finish();
    throw InputError(run.training->points.front().error);
  }
  return run;
}

} // namespace

StudyRun::StudyRun() = default;
StudyRun::StudyRun(StudyRun&&) noexcept = default;
StudyRun::~StudyRun() = default;

std::size_t StudyRun::failed() const {
  return collectives ? collectives->failedRows() : training ? training->failedPoints() : 0;
}

std::size_t StudyRun::total() const {
  return collectives ? collectives->rowCount() : training ? training->points.size() : 0;
}

void StudyRun::finish() {
  if (journal) journal->finish();
}

StudyRun runStudy(const std::vector<Scenario>& study, const std::string& command, const StudyRunOptions& o) {
  auto loadedTraining = [](const Scenario& s) { return s.loadError.empty() && s.training; };
  auto loadedCollective = [](const Scenario& s) { return s.loadError.empty() && !s.training; };
  if (std::any_of(study.begin(), study.end(), loadedTraining) && std::any_of(study.begin(), study.end(), loadedCollective))
    throw ConfigError(study.front().name + ": a study's points are all training steps or all collectives");
  if (!std::any_of(study.begin(), study.end(), loadedCollective)) return runTrainingStudy(study, command, o);
  if (o.resume) throw UsageError("--resume: continues training studies; a collective study has nothing to resume");
  StudyRun run;
  run.collectives = executeCollectiveStudy(study, command, o.execute);
  // Nothing ran: the study itself is wrong (exit 2, nothing written).
  if (run.collectives->failedRows() == run.collectives->rowCount()) throw InputError(run.collectives->firstError());
  return run;
}

} // namespace collsim
