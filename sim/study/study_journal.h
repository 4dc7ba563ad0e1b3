// The partial results of a training study, so that an interrupted study
// can continue where it stopped (`collsim run STUDY --out FILE --resume`).
//
// While a study runs with --out FILE, every completed point is appended to
// FILE.partial as one JSON line (its key and its full result); the first
// line holds the study's fingerprint (--set, the environment's HCCL
// settings, seed, collsim version) and every file the study read, by absolute path
// and content: a resume that reads another file, or one that changed since
// (the model, the cluster, a device file named by --set), is refused,
// naming it; so is a journal of another format, or none. When the study completes, FILE is written and the
// journal removed; when it is interrupted, the journal stays. --resume reads
// it back, refuses it if the fingerprint differs, and runs only the points
// it lacks. A record that does not read back as a result (a torn last line
// where the process died mid-write, or one damaged since: a number out of
// its field's range, a figure no run has, a key that does not match its
// point's check) is dropped and its point runs again. The running study
// holds FILE.partial.lock (journal_lock.h) before it reads or replaces the
// journal: a second run with the same --out is refused, naming the first. A journal past kMaxJournalBytes is refused. The journal is read and written like --out: only a
// regular file, never through a symlink, never waiting on a FIFO, and
// written anew so that another hard link to the old file keeps its content.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/config/inputs_read.h"
#include "sim/report/training_report.h"
#include "sim/study/journal_lock.h"

namespace collsim {

// A journal's text as --resume reads it: the sound records by key (and
// their lines, to write again), and how many it dropped. Throws UsageError
// when its first line is not `fingerprint`'s (`path` names it).
struct JournalContents {
  std::map<std::string, TrainingPoint> recovered;
  std::vector<std::string> records;
  int skipped = 0;
};
JournalContents parseJournal(const std::string& text, const std::string& fingerprint, const std::string& path,
                             const std::vector<InputRead>& inputs = {});

// The header's "collsim_journal": 2 since journals list their inputs.
inline constexpr int kJournalVersion = 2;

// No journal of collsim's reaches these (a point's record is a few KiB): a
// larger one is refused before it is read, a longer record is damaged.
inline constexpr std::size_t kMaxJournalBytes = std::size_t(256) << 20;
inline constexpr std::size_t kMaxJournalRecordBytes = std::size_t(4) << 20;

class StudyJournal {
public:
  // Starts FILE.partial afresh, or (`resume`) continues it. Throws UsageError.
  StudyJournal(const std::string& path, const std::string& fingerprint, bool resume,
               const std::vector<InputRead>& inputs = {});
  ~StudyJournal();
  StudyJournal(const StudyJournal&) = delete;
  StudyJournal& operator=(const StudyJournal&) = delete;

  // The points read back by --resume, by key.
  const std::map<std::string, TrainingPoint>& recovered() const { return read_.recovered; }
  // "" when written; else why not (once: the journal is closed after it).
  std::string append(const std::string& key, const TrainingPoint& point);
  // The study completed: the journal is no longer needed.
  void finish();
  const std::string& path() const { return path_; }
  // Records --resume could not use (damaged, or torn by an interruption):
  // their points run again.
  int skipped() const { return read_.skipped; }

private:
  std::string path_;
  JournalLock lock_; // taken first, released last
  int fd_ = -1;
  JournalContents read_; // by --resume
};

// A point's result as JSON and back, exactly (times in picoseconds).
std::string trainingPointRecord(const TrainingPoint& p);
TrainingPoint trainingPointFromRecord(const std::string& json);

} // namespace collsim
