// The overhead an environment's system calls predict (issue 39): the
// worker's operation mix, counted in a launch of its own
// (orchestrator/call_counting.h), times what each kind of call costs more in
// the environment than on the baseline (the syscall/table case of the same
// run), summed. That is CPU time over all the worker's threads; it is said
// as wall time per batch over the baseline's busy CPUs (CPU time over wall
// time), as the explanation's time budget does, and set beside the
// measured overhead with the share it explains.
#pragma once

#include <vector>

#include "analysis/analysis.h"

namespace dlcbench {

// Kinds of counted call (core/syscall_counter.h) and the cost-table kind
// each is priced at, with how many counted calls make one call of that kind
// (mmap's pair with its munmap is 2).
struct PricedKind {
  const char* counted;
  const char* cost;
  double calls_per_cost_call;
};
const std::vector<PricedKind>& priced_kinds();

// Every prediction the run allows: for each case with an operation mix and
// each of its overheads whose environment the cost table measured.
void predict_overheads(Analysis& a);

}  // namespace dlcbench
