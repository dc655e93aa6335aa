// When the element-wise loops of the engine use OpenMP threads.
#pragma once

#include <cstdint>

namespace dlcbench::reference {

// Loops over fewer values than this run on one thread: waking the thread
// team costs more than the work it would share.
inline constexpr std::int64_t kParallelGrain = 1 << 15;
// The same for loops that take an exponential or two per value.
inline constexpr std::int64_t kParallelGrainTranscendental = 1 << 12;

}  // namespace dlcbench::reference
