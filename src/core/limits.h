// The ranges every command accepts for its numbers: beyond them a value is
// a typing error, refused at the command line (cli/option_checks.h) and
// relied on by the planning.
#pragma once

namespace dlcbench {

// Rounds (--runs, --max-runs): more than this is days of launches for any case.
inline constexpr long kMaxRuns = 100000;
// Batches or operations per launch.
inline constexpr long kMaxIters = 1000000;
// Compute threads. Above the CPU count is accepted with a warning (a user may
// want to measure oversubscription); above this it is a typing error.
inline constexpr long kMaxThreads = 1024;
// Mini-batch size: the data sets hold at most 60,000 training examples, so a
// larger batch only repeats them (and needs gigabytes per step).
inline constexpr long kMaxBatch = 65536;
// Timed starts per round of the startup workload.
inline constexpr long kMaxStarts = 10000;
// A micro-benchmark's size (a matrix order, elements, or a file's bytes): 1 TiB.
inline constexpr long kMaxMicroSize = 1L << 40;
// The loader's worker processes and the batches each prepares ahead: a
// DataLoader rarely has more than a few dozen workers, and each batch ahead
// holds shared memory.
inline constexpr long kMaxLoaderWorkers = 256;
// serve: connections of the load generator, and its rate in requests/s.
inline constexpr long kMaxServeClients = 1024;
inline constexpr double kMaxServeRate = 1e6;
inline constexpr long kMaxLoaderPrefetch = 64;
// The loader's output image edge in pixels.
inline constexpr long kMaxLoaderEdge = 1024;
// --case-timeout: a week.
inline constexpr double kMaxCaseTimeoutSeconds = 7 * 24 * 3600.0;

}  // namespace dlcbench
