// The symbolic checker: runs a schedule on contributor sets instead of data.
//
// Every element of every rank's buffer holds the set of ranks whose input
// has been summed into it, and which input element it is (its index in the
// input buffer). Sends carry a snapshot of both, receives and copies
// overwrite, receive-reduces take the union; they flag any rank that would
// be counted twice, elements of different indices summed together, and
// reductions into an element that holds no data yet. At the end the cells
// must match the collective's definition exactly (AllReduce: element e of
// every rank holds all p ranks' element e; ReduceScatter: block r of rank r
// does; AllGather: element e of every rank holds exactly its owner's element
// e; AllToAll: output block j of rank r holds rank j's input block r ...).
// Along the way it proves that every send is matched by one receive of the
// same size, that no rank waits forever (deadlock), that no step writes
// the same bytes twice (unless both writes are reductions), and, with
// several streams, that two streams of a rank never write the same bytes
// unless a wait orders the writes (a race: per-stream clocks that waits
// carry from one stream to another).
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
