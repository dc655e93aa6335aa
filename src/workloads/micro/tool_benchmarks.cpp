#include "workloads/micro/tool_benchmarks.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "workloads/micro/external_tools.h"
#include "workloads/micro/hpl.h"
#include "workloads/micro/io_file.h"
#include "workloads/micro/tool_output.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

const ExternalTool& tool_named(const std::string& workload) {
  const ExternalTool* tool = find_external_tool(workload);
  if (!tool) throw std::logic_error("no external tool " + workload);
  if (!tool_program(*tool)) throw UsageError(tool_missing_message(*tool));
  return *tool;
}

// The tool's program and its version line, for the fingerprint.
nlohmann::json tool_identity(const ExternalTool& tool, const std::vector<std::string>& version_args) {
  nlohmann::json j = {{"tool", tool.program}, {"program", tool_program(tool)->string()}};
  if (!version_args.empty()) {
    auto version = capture_output([&] {
      std::vector<std::string> argv = {tool.program};
      argv.insert(argv.end(), version_args.begin(), version_args.end());
      return argv;
    }(), 30);
    j["tool_version"] = first_line(version.out.empty() ? version.result.stderr_tail : version.out);
  }
  return j;
}

ScratchFileSpec scratch_spec(const std::string& benchmark, const MicroParams& params, bool direct) {
  ScratchFileSpec spec;
  spec.benchmark = benchmark;
  spec.dir = params.path;
  spec.file_bytes = params.size;
  spec.block_bytes = params.block;
  spec.direct = direct;
  spec.buffered_allowed = benchmark != "ioping";
  spec.seed = params.seed;
  return spec;
}

bool writes(const std::string& benchmark, const std::string& variant) {
  if (variant == "write") return true;
  if (variant == "read" || (benchmark == "fio" && variant == "randread")) return false;
  throw UsageError(fmt::format("{} has no variant '{}': choose {}", benchmark, variant,
                               benchmark == "fio" ? "write, read or randread" : "write or read"));
}

// What the I/O tools share: the scratch file and its description.
class ToolFileBenchmark : public MicroBenchmark {
 protected:
  ToolFileBenchmark(const std::string& benchmark, const MicroParams& params, bool direct)
      : tool_(tool_named(benchmark)),
        direct_(direct),
        path_(canonical_folder(params.path)),
        file_(scratch_spec(benchmark, params, direct)) {}

  nlohmann::json file_description(const std::string& mode) const {
    nlohmann::json j = tool_identity(tool_, {"--version"});
    j.update({{"benchmark", tool_.workload},
              {"mode", mode},
              {"direct", direct_},
              {"file_bytes", file_.file_bytes()},
              {"block_bytes", file_.block_bytes()},
              {"path", path_},
              {"fs_type", file_.file_system().type},
              {"mount_source", file_.file_system().mount_source}});
    return j;
  }

  ToolRun run_on_file(std::vector<std::string> args) {
    ToolInvocation invocation;
    invocation.args = std::move(args);
    invocation.file_fd = file_.fd();
    return run_tool(tool_, invocation);
  }

  // An empty file of the full size, so a tool that writes allocates its
  // blocks as it goes, like dd writing a new file; fio also needs the size
  // in place, or it would try to lay the file out by name.
  void empty_file(bool keep_size) {
    file_.truncate();
    if (keep_size && ::ftruncate(file_.fd(), file_.file_bytes()) != 0)
      throw std::runtime_error(fmt::format("{}: cannot size the scratch file in {}: {}", tool_.workload, path_,
                                           std::strerror(errno)));
  }

  const ExternalTool& tool_;
  bool direct_;
  std::string path_;
  ScratchFile file_;
};

class DdTool final : public ToolFileBenchmark {
 public:
  explicit DdTool(const MicroParams& params)
      : ToolFileBenchmark("dd", params, params.direct), write_(writes("dd", params.variant)) {
    if (!write_) file_.fill();
  }

  nlohmann::json describe() const override {
    nlohmann::json j = file_description(write_ ? "write" : "read");
    if (write_) j["source"] = "/dev/zero";
    return j;
  }

  MicroResult run() override {
    const std::string bs = fmt::format("bs={}", file_.block_bytes());
    const std::string count = fmt::format("count={}", file_.requests());
    const std::string file = kToolScratchFile;
    std::vector<std::string> args;
    if (write_) {
      empty_file(false);
      args = {"if=/dev/zero", "of=" + file, bs, count, direct_ ? "oflag=direct" : "conv=fsync"};
    } else {
      file_.evict_from_cache();
      args = {"if=" + file, "of=/dev/null", bs, count};
      if (direct_) args.push_back("iflag=direct");
    }
    const ToolRun run = run_on_file(args);
    const DdFigures figures = parse_dd_output(run.err);
    if (figures.bytes != file_.file_bytes())
      throw ValidationError(fmt::format("dd moved {} bytes, not the {} asked for", figures.bytes, file_.file_bytes()));
    MicroResult result;
    result.seconds = figures.seconds;
    result.work = static_cast<double>(figures.bytes);
    result.detail = {{"bytes", figures.bytes}, {"tool_wall_seconds", run.wall_seconds}};
    return result;
  }

 private:
  bool write_;
};

class IopingTool final : public ToolFileBenchmark {
 public:
  explicit IopingTool(const MicroParams& params) : ToolFileBenchmark("ioping", params, true) {
    file_.fill();
    file_.evict_from_cache();
  }

  nlohmann::json describe() const override {
    nlohmann::json j = file_description("read");
    j["requests_per_operation"] = kIopingRequests;
    return j;
  }

  MicroResult run() override {
    // ioping leaves its first request out of its statistics: one more.
    const ToolRun run = run_on_file({"-D", "-B", "-q", "-i", "0", "-c", std::to_string(kIopingRequests + 1), "-s",
                                     std::to_string(file_.block_bytes()), "-S", std::to_string(file_.file_bytes()),
                                     kToolScratchFile});
    const IopingFigures f = parse_ioping_batch(run.out);
    MicroResult result;
    result.seconds = f.avg_ns * 1e-9;
    result.detail = {{"requests", f.requests},
                     {"min_ms", f.min_ns * 1e-6},
                     {"max_ms", f.max_ns * 1e-6},
                     {"mdev_ms", f.mdev_ns * 1e-6},
                     {"tool_wall_seconds", run.wall_seconds}};
    return result;
  }
};

class FioTool final : public ToolFileBenchmark {
 public:
  explicit FioTool(const MicroParams& params)
      : ToolFileBenchmark("fio", params, params.direct), variant_(params.variant), seed_(params.seed) {
    if (!writes("fio", variant_)) file_.fill();
  }

  nlohmann::json describe() const override {
    nlohmann::json j = file_description(variant_);
    j["ioengine"] = "psync";
    return j;
  }

  MicroResult run() override {
    const bool write = variant_ == "write";
    if (write) empty_file(true);
    else file_.evict_from_cache();
    std::vector<std::string> args = {"--name=dlcbench",
                                     fmt::format("--filename={}", kToolScratchFile),
                                     "--rw=" + variant_,
                                     fmt::format("--bs={}", file_.block_bytes()),
                                     fmt::format("--size={}", file_.file_bytes()),
                                     fmt::format("--direct={}", direct_ ? 1 : 0),
                                     "--ioengine=psync",
                                     "--thread",
                                     "--fallocate=none",
                                     "--allow_file_create=0",
                                     fmt::format("--randseed={}", seed_),
                                     "--output-format=json"};
    if (write && !direct_) args.push_back("--end_fsync=1");  // counted in fio's time, as dd's conv=fsync
    const ToolRun run = run_on_file(args);
    const FioFigures f = parse_fio_json(run.out, write ? "write" : "read");
    MicroResult result;
    result.seconds = static_cast<double>(f.io_bytes) / f.bw_bytes;
    result.work = static_cast<double>(f.io_bytes);
    result.detail = {{"bytes", f.io_bytes},
                     {"runtime_ms", f.runtime_ms},
                     {"mean_latency_ms", f.mean_latency_ns * 1e-6},
                     {"tool_wall_seconds", run.wall_seconds}};
    return result;
  }

 private:
  std::string variant_;
  std::uint64_t seed_;
};

class HpccTool final : public MicroBenchmark {
 public:
  explicit HpccTool(const MicroParams& params)
      : tool_(tool_named("hpcc")), variant_(params.variant), n_(params.size), threads_(params.threads) {
    if (variant_ != "hpl" && variant_ != "dgemm" && variant_ != "stream")
      throw UsageError(fmt::format("hpcc has no variant '{}': choose hpl, dgemm or stream", variant_));
  }

  nlohmann::json describe() const override {
    nlohmann::json j = tool_identity(tool_, {});
    j.update({{"benchmark", "hpcc"}, {"figure", figure_key()}, {"n", n_}, {"nb", kBlock}, {"processes", 1},
              {"threads", threads_}});
    return j;
  }

  MicroResult run() override {
    // A fresh folder per run: hpcc appends to its output file.
    ScratchDir folder("dlcbench-hpcc");
    std::ofstream(folder.path() / "hpccinf.txt") << hpcc_input(n_, kBlock);
    ToolInvocation invocation;
    invocation.cwd = folder.path().string();
    const std::string threads = std::to_string(threads_);
    // One process without mpirun: Open MPI's singleton mode, told not to
    // start its support daemon (orted), which one process never needs.
    invocation.env = {{"OMPI_MCA_ess_singleton_isolated", "1"},
                      {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
                      {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
                      {"OMP_NUM_THREADS", threads},
                      {"OPENBLAS_NUM_THREADS", threads}};
    const ToolRun run = run_tool(tool_, invocation);
    std::ifstream in(folder.path() / "hpccoutf.txt");
    if (!in) throw ToolOutputError(fmt::format("hpcc wrote no hpccoutf.txt in {}: {}", folder.path().string(), tail(run.out, 400)));
    std::stringstream text;
    text << in.rdbuf();
    const auto summary = parse_hpcc_summary(text.str());
    if (const std::string failure = hpcc_failure(text.str(), summary); !failure.empty()) throw ValidationError(failure);

    MicroResult result;
    result.detail = {{"tool_wall_seconds", run.wall_seconds}};
    if (variant_ == "hpl") {
      if (hpcc_value(summary, "HPL_N") != static_cast<double>(n_))
        throw ToolOutputError(fmt::format("hpcc ran HPL with N={}, not {}", summary.at("HPL_N"), n_));
      result.work = hpl_flops(n_);
      result.seconds = hpcc_value(summary, "HPL_time");
      result.detail["hpcc_gflops"] = hpcc_value(summary, "HPL_Tflops") * 1e3;
    } else if (variant_ == "dgemm") {
      const double n = hpcc_value(summary, "DGEMM_N");
      result.work = 2 * n * n * n;
      result.seconds = result.work / (hpcc_value(summary, "SingleDGEMM_Gflops") * 1e9);
      result.detail["dgemm_n"] = n;
    } else {
      // STREAM triad reads two arrays and writes one, of 8-byte doubles.
      const double elements = hpcc_value(summary, "STREAM_VectorSize");
      result.work = 3 * 8 * elements;
      result.seconds = result.work / (hpcc_value(summary, "SingleSTREAM_Triad") * 1e9);
      result.detail["vector_size"] = elements;
      for (const char* key : {"SingleSTREAM_Copy", "SingleSTREAM_Scale", "SingleSTREAM_Add"})
        result.detail[key] = hpcc_value(summary, key);
    }
    if (!(result.seconds > 0)) throw ToolOutputError(fmt::format("hpcc reported no time for {}", figure_key()));
    return result;
  }

 private:
  static constexpr int kBlock = 192;  // HPL's NB, as in hpcc's example input
  std::string figure_key() const {
    return variant_ == "hpl" ? "HPL_Tflops" : variant_ == "dgemm" ? "SingleDGEMM_Gflops" : "SingleSTREAM_Triad";
  }

  const ExternalTool& tool_;
  std::string variant_;
  std::int64_t n_;
  int threads_;
};

}  // namespace

std::unique_ptr<MicroBenchmark> make_dd_tool(const MicroParams& params) { return std::make_unique<DdTool>(params); }
std::unique_ptr<MicroBenchmark> make_ioping_tool(const MicroParams& params) {
  return std::make_unique<IopingTool>(params);
}
std::unique_ptr<MicroBenchmark> make_fio_tool(const MicroParams& params) { return std::make_unique<FioTool>(params); }
std::unique_ptr<MicroBenchmark> make_hpcc_tool(const MicroParams& params) {
  return std::make_unique<HpccTool>(params);
}

}  // namespace dlcbench
