// The symbolic checker: runs a schedule on contributor sets instead of data.
//
// Every element of every rank's buffer holds the set of ranks whose input
// has been summed into it. Sends carry a snapshot of those sets, receives
// overwrite with them, receive-reduces take the union and flag any rank that
// would be counted twice. At the end the sets must match the collective's
// definition exactly (AllReduce: every element of every rank holds all p
// ranks; ReduceScatter: block r of rank r does; AllGather: every element
// holds exactly its owner ...). Along the way it proves that every send is
// matched by one receive of the same size, that no rank waits forever
// (deadlock), and that no step reads and writes, or writes twice, the same
// bytes while its operations are in flight.
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/schedule.h"

namespace collsim {

struct CheckReport {
  std::vector<std::string> problems; // empty when the schedule is correct
  bool ok() const { return problems.empty(); }
  std::string summary() const;       // problems joined by newlines
};

CheckReport checkSchedule(const Schedule& schedule, const CollectiveSpec& spec);

} // namespace collsim
