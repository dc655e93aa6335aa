#include "workloads/micro/micro_workloads.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/units.h"
#include "workloads/micro/gemm.h"
#include "workloads/micro/hpcg.h"
#include "workloads/micro/hpl.h"
#include "workloads/micro/io_lat.h"
#include "workloads/micro/io_seq.h"
#include "workloads/micro/stream.h"
#include "workloads/micro/syscall_cost.h"
#include "workloads/micro/external_tools.h"
#include "gpu/gpu_loader.h"
#include "workloads/micro/tool_benchmarks.h"
#include "workloads/loader/loader.h"
#include "core/limits.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

std::optional<std::uint64_t> available_memory_bytes() {
  const std::int64_t usable = usable_memory_bytes();
  return usable < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(usable));
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// A positive whole number ("4096") or, for byte options, a size ("256m").
std::int64_t parse_positive(const std::string& workload, const std::string& key, const std::string& value,
                            bool bytes) {
  std::optional<std::uint64_t> parsed;
  if (bytes) {
    parsed = parse_byte_size(value);
  } else if (!value.empty() && std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    try {
      parsed = std::stoull(value);
    } catch (const std::exception&) {
    }
  }
  if (!parsed || *parsed == 0 || *parsed > (std::uint64_t{1} << 50))
    throw UsageError(fmt::format("{}: {}={} is not {}", workload, key, value,
                                 bytes ? "a size such as 4k, 1m or 256m" : "a positive whole number"));
  return static_cast<std::int64_t>(*parsed);
}

std::string option_or_default(const MicroRequest& request, const MicroWorkloadInfo& info, const std::string& key) {
  auto it = request.options.find(key);
  if (it != request.options.end()) return it->second;
  auto d = info.defaults.find(key);
  return d == info.defaults.end() ? "" : d->second;
}

std::uint64_t free_bytes(const fs::path& folder) {
  struct statvfs s {};
  if (statvfs(folder.c_str(), &s) != 0) return 0;
  return static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
}

// serve's rate=: requests per second, a positive number ("400", "37.5").
double parse_rate(const std::string& text) {
  std::size_t used = 0;
  double rate = 0;
  try {
    rate = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(rate > 0) || rate > kMaxServeRate)
    throw UsageError(fmt::format("serve: rate={} is not a number of requests per second from 0 (closed loop) to {:g}",
                                 text, kMaxServeRate));
  return rate;
}

}  // namespace

double micro_figure(const MicroWorkloadInfo& info, double work, double seconds) {
  return info.rate ? work / seconds / info.figure_scale : seconds * info.figure_scale;
}

const std::vector<MicroWorkloadInfo>& micro_workloads() {
  auto info = [](std::string name, std::string description, std::string unit, bool rate, double scale,
                 std::string statistic, std::vector<std::string> variants, std::map<std::string, std::string> defaults,
                 int warmup, int iters, bool io,
                 std::unique_ptr<MicroBenchmark> (*make)(const MicroParams&)) {
    MicroWorkloadInfo w;
    w.name = std::move(name);
    w.description = std::move(description);
    w.figure_unit = std::move(unit);
    w.rate = rate;
    w.figure_scale = scale;
    w.run_statistic = std::move(statistic);
    w.variants = std::move(variants);
    for (const auto& [key, value] : defaults) w.options.push_back(key);
    w.defaults = std::move(defaults);
    w.warmup = warmup;
    w.iters = iters;
    w.io = io;
    w.make = make;
    return w;
  };
  auto with_figure_per = [](MicroWorkloadInfo w, std::string per) {
    w.figure_per = std::move(per);
    return w;
  };
  static const std::vector<MicroWorkloadInfo> all = [&] {
    std::vector<MicroWorkloadInfo> list = {
      info("gemm", "SGEMM and DGEMM of square matrices through the BLAS (OpenBLAS): C = A B, 2 n^3 flops", "GFLOP/s",
           true, 1e9, "mean", {"sgemm", "dgemm"}, {{"n", "4096"}}, 1, 5, false, make_gemm),
      info("hpl",
           "HPL's method: dense LU solve with partial pivoting (LAPACK dgetrf + dgetrs), HPL's flop count and "
           "scaled-residual check",
           "GFLOP/s", true, 1e9, "mean", {}, {{"n", "8192"}}, 1, 3, false, make_hpl),
      info("hpcg",
           "HPCG method (not an official HPCG result): CG with a symmetric Gauss-Seidel multigrid V-cycle on the "
           "27-point stencil, n^3 grid, 50 iterations per operation",
           "GFLOP/s", true, 1e9, "mean", {}, {{"n", "64"}}, 1, 3, false, make_hpcg),
      info("stream",
           "STREAM copy, scale, add and triad over arrays 4x the last-level cache; best of the operations, as STREAM "
           "reports",
           "GB/s", true, 1e9, "min", {"copy", "scale", "add", "triad"}, {{"n", "auto"}}, 1, 10, false, make_stream),
      info("io-seq", "dd-style sequential write then read of a file, O_DIRECT and buffered (fsync counted)", "MB/s",
           true, 1e6, "mean", {"write", "read"}, {{"size", "256m"}, {"block", "1m"}, {"mode", "both"}}, 1, 3, true,
           make_io_seq),
      info("io-lat", "ioping-style latency of 4 KiB random reads with O_DIRECT, one read per operation; median per run",
           "ms", false, 1e3, "median", {}, {{"size", "64m"}, {"block", "4k"}}, 10, 200, true, make_io_lat),
      // The real tools, where installed, on the same scratch file or problem.
      info("dd", "the dd tool (coreutils): the file written from /dev/zero, then read; oflag/iflag=direct, or "
           "buffered with conv=fsync; dd's own time", "MB/s", true, 1e6, "mean", {"write", "read"},
           {{"size", "256m"}, {"block", "1m"}, {"mode", "both"}}, 1, 3, true, make_dd_tool),
      info("ioping", "the ioping tool: -D random reads, 100 per operation; the figure is ioping's mean latency", "ms",
           false, 1e3, "mean", {}, {{"size", "64m"}, {"block", "4k"}}, 1, 5, true, make_ioping_tool),
      info("fio", "the fio tool, psync engine, one job: sequential write and read, random read; fio's own bandwidth",
           "MB/s", true, 1e6, "mean", {"write", "read", "randread"},
           {{"size", "256m"}, {"block", "1m"}, {"mode", "both"}}, 1, 3, true, make_fio_tool),
      info("hpcc", "the HPC Challenge tool (hpcc, one process): HPL_Tflops, SingleDGEMM_Gflops or "
           "SingleSTREAM_Triad; each operation is a full hpcc run (about a minute at n=4096)", "GFLOP/s", true, 1e9,
           "mean", {"hpl", "dgemm", "stream"}, {{"n", "4096"}}, 0, 3, false, make_hpcc_tool),
      // Data loading as a training job's DataLoader does it: worker processes,
      // shared memory, a training step on every batch.
      info(kLoaderWorkload,
           "a DataLoader with worker processes: workers= processes read, decode and augment MNIST or CIFAR-10 "
           "examples (random crop, flip, bilinear resize to edge=) and hand each batch over in its own POSIX "
           "shared-memory segment in /dev/shm, prefetch= batches ahead each; a linear classifier trains on every "
           "batch. Samples per second, and the time the step waited for data",
           "samples/s", true, 1, "mean", {"mnist", "cifar10"},
           {{"workers", "4"}, {"prefetch", "2"}, {"batch", "128"}, {"edge", "112"}}, 1, 10, false, make_loader),
      // What a system call and a page fault cost, kind by kind: the table an
      // overhead is predicted from.
      with_figure_per(info("syscall",
           "the cost of one system call or page fault, per kind: null (getppid), clock (clock_gettime, not the "
           "vDSO), read and write of 1 byte (/dev/zero, /dev/null), openclose, stat, mmap (one page, its first "
           "touch, munmap), futex (a wake answered from another thread and back), yield, pipe (a byte to another "
           "thread and back); 10,000 calls per operation, median per run. `syscall` alone is syscall/table: "
           "every kind in one launch, 1,000 calls of each per operation, each kind's cost in the results and the "
           "cost table an overhead is predicted from",
           "ns", false, 1e9 / kSyscallCallsPerOperation, "median", syscall_variants(), {}, 1, 10, false,
           make_syscall_cost), "call"),
      // An inference server in the environment, its load from the host: the
      // figure is a latency quantile per launch (p99; p50, p90 and p99.9
      // beside it), so the tail is compared, not the mean.
      info(kServeWorkload,
           "an inference server: threads= inference threads answer batch-1 requests for the network (fcn5, alexnet, "
           "resnet56, lstm; LibTorch) over TCP from a load generator on the host, at rate= requests/s (open loop; "
           "0: closed loop over clients= connections); requests= measured per launch. Latency from when a request "
           "was due to its answer, p99 per launch, p50, p90 and p99.9 beside it",
           "ms", false, 1e3, "p99", {"fcn5", "alexnet", "resnet56", "lstm"},
           {{"threads", "2"}, {"rate", "0"}, {"clients", "0"}, {"requests", "2000"}}, 200, 2000, false, nullptr),
      // On the GPU, through the CUDA plugin, loaded by the worker that runs them.
      info("gpu-gemm", "cuBLAS GEMM (cublasGemmEx) of square matrices on the GPU: FP32, TF32 (tensor cores), BF16 "
           "and FP16 (FP32 accumulation); about 100 ms of products per operation, CUDA events, results checked",
           "GFLOP/s", true, 1e9, "mean", {"fp32", "tf32", "bf16", "fp16"}, {{"n", "8192"}}, 1, 5, false,
           [](const MicroParams& p) { return gpu_plugin().make_gpu_gemm(p); }),
      info("gpu-copy", "one cudaMemcpyAsync per operation: host to device and device to host from pinned and "
           "pageable memory, and device to device; bytes copied per second, CUDA events", "GB/s", true, 1e9, "mean",
           {"h2d-pinned", "h2d-pageable", "d2h-pinned", "d2h-pageable", "d2d"}, {{"size", "1g"}}, 1, 10, false,
           [](const MicroParams& p) { return gpu_plugin().make_gpu_copy(p); }),
    };
    for (auto& w : list) {
      w.gpu = w.name.rfind("gpu-", 0) == 0;
      w.external = find_external_tool(w.name) != nullptr;
      if (w.name == "hpcc") w.variant_units["stream"] = "GB/s";
    }
    return list;
  }();
  return all;
}

const MicroWorkloadInfo* find_micro_workload(const std::string& name) {
  for (const auto& w : micro_workloads())
    if (w.name == name) return &w;
  return nullptr;
}

MicroRequest parse_micro_request(const std::string& text) {
  MicroRequest r;
  const auto colon = text.find(':');
  std::string head = text.substr(0, colon);
  if (auto slash = head.find('/'); slash != std::string::npos) {
    r.variant = head.substr(slash + 1);
    head = head.substr(0, slash);
  }
  r.name = head;
  const MicroWorkloadInfo* info = find_micro_workload(r.name);
  if (!info) throw UsageError(fmt::format("'{}' is not a micro-benchmark", r.name));
  if (!r.variant.empty() && !contains(info->variants, r.variant))
    throw UsageError(info->variants.empty()
                         ? fmt::format("{} has no variants: write {}", r.name, r.name)
                         : fmt::format("{}/{}: valid variants are {}", r.name, r.variant, fmt::join(info->variants, ", ")));
  if (colon == std::string::npos) return r;
  std::stringstream in(text.substr(colon + 1));
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (eq == std::string::npos || !contains(info->options, key))
      throw UsageError(fmt::format("{}: unknown option '{}': valid options are {}", r.name, item,
                                   fmt::format("{}=", fmt::join(info->options, "=, "))));
    r.options[key] = item.substr(eq + 1);
  }
  return r;
}

std::uint64_t micro_memory_bytes(const CaseSpec& spec) {
  const auto n = static_cast<double>(spec.size);
  double bytes = 0;
  if (spec.workload == "gemm") bytes = 3 * n * n * (spec.variant == "sgemm" ? 4 : 8);
  else if (spec.workload == "hpl") bytes = 2 * n * n * 8 + 4 * n * 8;
  else if (spec.workload == "hpcg") bytes = hpcg::estimated_memory_bytes(spec.size);
  else if (spec.workload == "stream") bytes = 3 * n * 8;
  else if (spec.workload == "hpcc") bytes = 1.25 * n * n * 8;
  else if (spec.workload == "gpu-gemm") bytes = 3 * n * n * 4;  // host: both inputs as floats, one staged
  else if (spec.workload == kLoaderWorkload)  // the batches in flight, in shared memory, two mapped, and the
    bytes = (spec.workers * spec.prefetch + 2.0) *   // classifier's weights, velocity and gradient (10 classes)
                static_cast<double>(loader_batch_bytes(spec.variant, spec.batch, spec.size)) +
            30.0 * static_cast<double>(loader_batch_bytes(spec.variant, 1, spec.size));
  else if (spec.workload == "gpu-copy") bytes = spec.variant == "d2d" ? (8 << 20) : n;  // host buffer  // HPL's matrix; its other tests are sized below it
  else bytes = 2.0 * static_cast<double>(spec.block);  // io: its buffers; the file is on its file system
  return static_cast<std::uint64_t>(bytes);
}

bool external_tool_missing(const std::string& item) {
  const ExternalTool* tool = find_external_tool(item.substr(0, item.find_first_of("/:")));
  return tool && !tool_program(*tool);
}

void check_io_target(const std::string& target, std::uint64_t bytes) {
  if (target == kTmpfsTarget) {
    const auto available = available_memory_bytes();
    if (available && bytes > *available)
      throw UsageError(fmt::format("--path tmpfs: a {} file in memory does not fit in the {} available: give a "
                                   "smaller size= or another --path",
                                   format_memory_bytes(static_cast<double>(bytes)), format_memory_bytes(static_cast<double>(*available))));
    return;
  }
  const fs::path folder = target == kRootfsTarget ? fs::path("/var/tmp") : fs::path(target);
  const std::string name = target == kRootfsTarget ? "--path rootfs (/var/tmp on the host)" : "--path " + target;
  if (target != kRootfsTarget && !folder.is_absolute())
    throw UsageError(fmt::format("{}: give an absolute folder, or rootfs or tmpfs", name));
  std::error_code ec;
  if (!fs::exists(folder, ec))
    throw UsageError(fmt::format("{}: the folder does not exist: create it or give another --path", name));
  if (!fs::is_directory(folder, ec))
    throw UsageError(fmt::format("{}: not a folder: give the folder the scratch file should go in", name));
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{}: not writable by this user: give a folder you can write to", name));
  const std::uint64_t free = free_bytes(folder);
  // A margin, so the benchmark does not fill the file system to the last block.
  if (bytes + bytes / 20 + (64ull << 20) > free)
    throw UsageError(fmt::format("{}: {} free, the file needs {} (and a margin): free some space, give a smaller "
                                 "size=, or another --path",
                                 name, format_memory_bytes(static_cast<double>(free)), format_memory_bytes(static_cast<double>(bytes))));
}

std::vector<CaseSpec> expand_micro_cases(const MicroRequest& request, const MicroPlanSettings& settings) {
  const MicroWorkloadInfo& info = *find_micro_workload(request.name);
  if (const ExternalTool* tool = find_external_tool(info.name); tool && !tool_program(*tool))
    throw UsageError(tool_missing_message(*tool));
  CaseSpec base;
  base.workload = info.name;
  base.backend = "none";
  base.batch = 0;
  base.warmup = settings.warmup.value_or(info.warmup);
  base.iters = settings.iters.value_or(info.iters);
  base.threads = settings.threads;
  base.seed = settings.seed;
  if (info.gpu) base.device = "gpu";

  if (info.name == "syscall") {
    base.size = kSyscallCallsPerOperation;
    std::vector<CaseSpec> cases;
    // `syscall` alone: the whole table in one launch per environment.
    CaseSpec c = base;
    c.variant = request.variant.empty() ? std::string(kSyscallTable) : request.variant;
    cases.push_back(c);
    return cases;
  }
  if (info.name == kServeWorkload) {
    const std::int64_t threads = parse_positive(info.name, "threads", option_or_default(request, info, "threads"), false);
    const std::int64_t requests =
        parse_positive(info.name, "requests", option_or_default(request, info, "requests"), false);
    const std::string rate = option_or_default(request, info, "rate");
    const std::string clients = option_or_default(request, info, "clients");
    if (threads > kMaxThreads || requests > kMaxIters)
      throw UsageError(fmt::format("serve: threads= goes up to {} and requests= up to {}", kMaxThreads, kMaxIters));
    base.workers = static_cast<int>(threads);
    base.size = 1;  // batch 1
    base.batch = 1;
    base.iters = static_cast<int>(requests);
    base.warmup = static_cast<int>(std::max<std::int64_t>(20, requests / 10));
    base.rate = rate == "0" ? 0.0 : parse_rate(rate);
    base.clients = clients == "0" ? base.workers
                                  : static_cast<int>(parse_positive(info.name, "clients", clients, false));
    base.backend = "torch";
    CaseSpec c = base;
    c.variant = request.variant.empty() ? "fcn5" : request.variant;
    check_worker_case_counts(c);
    return {c};
  }
  if (info.name == kLoaderWorkload) {
    auto whole = [&](const char* key, long high) {
      const std::int64_t v = parse_positive(info.name, key, option_or_default(request, info, key), false);
      if (v > high)
        throw UsageError(fmt::format("{}: {}={} is out of range: give a whole number from 1 to {}", info.name, key, v,
                                     high));
      return static_cast<int>(v);
    };
    base.workers = whole("workers", kMaxLoaderWorkers);
    base.prefetch = whole("prefetch", kMaxLoaderPrefetch);
    base.batch = whole("batch", kMaxBatch);
    base.size = whole("edge", kMaxLoaderEdge);
  } else if (info.io) {
    base.size = parse_positive(info.name, "size", option_or_default(request, info, "size"), true);
    base.block = parse_positive(info.name, "block", option_or_default(request, info, "block"), true);
    if (base.block % 512 != 0)
      throw UsageError(fmt::format("{}: block={} is not a multiple of 512 bytes, which O_DIRECT needs", info.name,
                                   option_or_default(request, info, "block")));
    if (base.size < base.block || base.size % base.block != 0)
      throw UsageError(fmt::format("{}: size={} must be a whole number of blocks of {}", info.name,
                                   option_or_default(request, info, "size"), option_or_default(request, info, "block")));
  } else if (contains(info.options, "size")) {
    base.size = parse_positive(info.name, "size", option_or_default(request, info, "size"), true);
    if (base.size % 8 != 0)
      throw UsageError(fmt::format("{}: size={} is not a whole number of 8-byte words", info.name,
                                   option_or_default(request, info, "size")));
  } else {
    const std::string n = option_or_default(request, info, "n");
    base.size = n == "auto" && info.name == "stream" ? stream_default_elements() : parse_positive(info.name, "n", n, false);
  }

  std::vector<std::string> modes = {""};
  if (contains(info.options, "mode")) {
    const std::string mode = option_or_default(request, info, "mode");
    if (mode == "both") modes = {"direct", "buffered"};
    else if (mode == "direct" || mode == "buffered") modes = {mode};
    else throw UsageError(fmt::format("{}: mode={} is not direct, buffered or both", info.name, mode));
  }
  std::vector<std::string> variants = request.variant.empty() ? info.variants : std::vector{request.variant};
  if (variants.empty()) variants = {""};
  std::vector<std::string> targets = info.io ? settings.io_targets : std::vector<std::string>{""};

  std::vector<CaseSpec> cases;
  for (const auto& target : targets) {
    if (info.io) check_io_target(target, static_cast<std::uint64_t>(base.size));
    for (const auto& mode : modes)
      for (const auto& variant : variants) {
        CaseSpec c = base;
        c.variant = variant;
        c.io_mode = mode;
        c.io_target = target;
        cases.push_back(c);
      }
  }
  const auto available = available_memory_bytes();
  for (const auto& c : cases) {
    const std::uint64_t needed = micro_memory_bytes(c);
    if (available && static_cast<double>(needed) > kBenchmarkMemoryShare * static_cast<double>(*available))
      throw UsageError(fmt::format("{} needs {} of memory and {} is available: give a smaller size ({}:{}=...)",
                                   c.id(), format_memory_bytes(static_cast<double>(needed)),
                                   format_memory_bytes(static_cast<double>(*available)), c.workload, info.io ? "size" : "n"));
  }
  return cases;
}

MicroParams micro_params(const CaseSpec& spec, const std::string& path) {
  MicroParams p;
  p.variant = spec.variant;
  p.size = spec.size;
  p.block = spec.block;
  p.direct = spec.io_mode != "buffered";
  p.path = path;
  p.threads = spec.threads;
  p.seed = spec.seed;
  p.batch = spec.batch;
  p.workers = spec.workers;
  p.prefetch = spec.prefetch;
  return p;
}

}  // namespace dlcbench
