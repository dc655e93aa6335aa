// One benchmark case: what the worker trains or measures, and how.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/command_spec.h"

namespace dlcbench {

inline constexpr const char* kSyntheticData = "synthetic";
inline constexpr const char* kSyscallWorkload = "syscall";

struct CaseSpec {
  std::string workload = "fcn5";
  std::string backend = "torch";
  std::string device = "cpu";
  int batch = 64;
  int warmup = 5;
  int iters = 20;
  int threads = 1;
  std::uint64_t seed = 42;
  // "memory": batches come from the data set loaded before timing;
  // "disk": each step reads its batch from the data set's files, timed.
  std::string input = "memory";

  // Micro-benchmarks (gemm, hpl, hpcg, stream, io-seq, io-lat); empty or 0
  // for training and startup.
  std::string variant;    // e.g. "sgemm", "triad", "write"
  std::int64_t size = 0;  // matrix order, grid edge, elements or file bytes
  std::int64_t block = 0;  // io: bytes per request
  std::string io_mode;    // io-seq: "direct" or "buffered"
  std::string io_target;  // io: "rootfs", "tmpfs" or a host folder (see micro_workloads.h)
  // loader: its worker processes and the batches each prepares ahead; its
  // examples per batch are `batch`, its data set `variant`, its edge `size`.
  int workers = 0;
  int prefetch = 0;
  // serve: its network is `variant`, its inference threads `workers`, its
  // size 1 (batch 1); the load: requests per second (0: closed loop) over
  // `clients` connections, `iters` requests measured after `warmup`.
  double rate = 0;
  int clients = 0;

  // A user's command (workload "command"); empty argv otherwise.
  CommandSpec command;

  bool micro() const { return size > 0; }
  bool is_command() const { return workload == kCommandWorkload; }
  // The system-call cost table and its kinds run in dlcbench-probe, which is
  // static: the figures depend on no library of the image, and a user's own
  // image or root file system needs no dlcbench installed for them.
  bool runs_in_probe() const { return is_command() || workload == kSyscallWorkload; }
  bool serves() const { return workload == "serve"; }

  // Identifies the case in results and reports, e.g. "fcn5/torch/cpu/b64",
  // with "/disk" appended when batches are read from disk;
  // "gemm/sgemm/n4096", "io-seq/read/direct/bs1M/256M@rootfs";
  // "loader/cifar10/w4/p2/b128/e112"; "serve/fcn5/t2/r400" (c2: closed
  // loop over 2 connections); "cmd:train"
  // for a user's command.
  std::string id() const;
  // Arguments that make `dlcbench worker` run this case: `worker --case
  // JSON`, the case as it is (to_json); the data location and the I/O folder
  // are added by the environment, which knows where it mounts them.
  std::vector<std::string> worker_args() const;
};

// The counts of a case a worker runs (a network's training or a
// micro-benchmark), checked once for every way a case is made (planned from
// a request, or read by the worker): threads, measured and warm-up
// iterations, and a network's batch and input, within the ranges of
// core/limits.h. Throws UsageError naming the option.
void check_worker_case_counts(const CaseSpec& spec);

void to_json(nlohmann::json& j, const CaseSpec& c);
void from_json(const nlohmann::json& j, CaseSpec& c);

}  // namespace dlcbench
