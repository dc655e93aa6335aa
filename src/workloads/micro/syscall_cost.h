// What one system call or page fault costs, per kind, in the environment
// the worker runs in: the table an overhead is predicted from (issue 39).
// Each operation makes kSyscallCallsPerOperation calls of its variant in a
// tight loop; the figure is nanoseconds per call.
//
//   null       getppid(2) through syscall(2): the cost of entering the kernel
//   clock      clock_gettime(CLOCK_MONOTONIC) through syscall(2), not the vDSO
//   read       read(2) of 1 byte from /dev/zero
//   write      write(2) of 1 byte to /dev/null
//   openclose  open(2) and close(2) of /dev/null (two calls, counted as one)
//   stat       stat(2) of /dev/null
//   mmap       mmap(2) of one page, its first touch (a page fault), munmap(2)
//   fault      the first touch of one page of many in a fresh mapping: the
//              page fault a workload takes filling a new buffer
//   futex      one futex wake answered by a wait in another thread and back
//   yield      sched_yield(2)
//   pipe       one byte through a pipe to another thread and back
//
// "table" runs them all in one launch (the cost table an environment's
// prediction uses): each operation makes kSyscallCallsPerOperation calls, an
// equal share of each kind, its figure the mean cost of a call over the
// kinds, and its detail each kind's ns per call ("ns_per_call").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

// 1,000 calls of each of the table's 11 kinds.
inline constexpr int kSyscallCallsPerOperation = 11000;

inline constexpr const char* kSyscallTable = "table";

// The kinds of call, in the table's order.
const std::vector<std::string>& syscall_kinds();
// "table", then every kind: the cases `syscall/VARIANT` names.
const std::vector<std::string>& syscall_variants();

// Throws UsageError for an unknown variant.
std::unique_ptr<MicroBenchmark> make_syscall_cost(const MicroParams& params);

}  // namespace dlcbench
