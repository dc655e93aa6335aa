// dd, ioping, fio and hpcc as micro-benchmarks: the worker runs the real
// tool once per operation, in whatever environment it is in, and reads the
// figure the tool itself reports (dd's and fio's transfer time, ioping's mean
// latency, hpcc's HPL, DGEMM and STREAM results), so a report puts the
// tools' figures next to dlcbench's own for host and containers alike.
//
// The I/O tools work on the same scratch file as io-seq and io-lat (created
// in the folder under test and unlinked at once), which they open as
// /proc/self/fd/3: nothing with a name is ever left in the folder. hpcc
// needs a working folder for its input and output files: a private one
// under $TMPDIR, removed after the run (the host environment points TMPDIR
// at the run's own scratch folder; containers have their own /tmp).
#pragma once

#include <memory>

#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

// params.variant write|read; params.direct: oflag=direct / iflag=direct,
// otherwise buffered with conv=fsync on writes and the file dropped from the
// page cache before reads.
std::unique_ptr<MicroBenchmark> make_dd_tool(const MicroParams& params);
// ioping -D: kIopingRequests random reads of params.block bytes over a
// params.size-byte file per operation; the figure is their mean latency.
inline constexpr int kIopingRequests = 100;
std::unique_ptr<MicroBenchmark> make_ioping_tool(const MicroParams& params);
// fio with the psync engine, one job: params.variant write|read|randread.
std::unique_ptr<MicroBenchmark> make_fio_tool(const MicroParams& params);
// hpcc, one process, matrix order params.size: params.variant hpl|dgemm|stream
// picks the figure (HPL_Tflops, SingleDGEMM_Gflops, SingleSTREAM_Triad);
// every run is a full hpcc run.
std::unique_ptr<MicroBenchmark> make_hpcc_tool(const MicroParams& params);

}  // namespace dlcbench
