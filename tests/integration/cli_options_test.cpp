// Every option of every command, with bad values: empty, zero, negative, of
// the wrong type and above the largest sensible value. Each must be refused
// with exit status 2 and a message naming the option, before anything runs
// or is written; and one boundary value of each must be accepted. A second
// test checks that the table leaves no option of the real command line out.
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/worker_options.h"
#include "core/sha.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using testing::run_dlcbench;
using testing::TempDir;

// Files the rows refer to, made once per test.
struct Fixture {
  TempDir dir;
  std::filesystem::path out = dir / "out";            // --out of every run row (must stay empty)
  std::filesystem::path data = dir / "data";          // a verified cifar10 install, for `data fetch`
  std::filesystem::path file = dir / "a-file";        // a regular file where a folder is expected
  std::filesystem::path scratch = dir / "scratch";    // io micro-benchmarks' --path
  std::filesystem::path report = dir / "report.json";
  std::filesystem::path run;                          // a finished run, for report, compare and --resume
};

// A row of the table: one option of one command.
struct OptionRow {
  std::string option;                // as the command line names it: "--runs", or a positional's name
  std::vector<std::string> base;     // the command and the other arguments a use of the option needs
  bool flag = false;                 // refused values are given as --flag=VALUE, the accepted one bare
  bool positional = false;           // the value is given without the option's name
  std::vector<std::string> refused;  // each: exit 2, a message naming the option, nothing written
  std::string refused_range;         // the values refused, in words
  std::string accepted;              // a boundary value that is accepted
  int accepted_exit = 0;             // what the accepted use exits with (1: it got past the options, then failed)
  std::string accepted_says;         // something the accepted use must print (a warning), or ""
  // What a refusal's message must contain: the option's name, or for a
  // positional the value or the word for it.
  std::string named_as;
  std::vector<std::pair<std::string, std::string>> env{};  // of the accepted use
};

std::vector<std::string> with_value(const OptionRow& row, const std::string& value, bool bare = false) {
  std::vector<std::string> args = row.base;
  if (row.positional) {
    // Positionals go where the command expects them: after the subcommand words.
    std::size_t at = 0;
    while (at < args.size() && args[at].rfind("-", 0) != 0) ++at;
    args.insert(args.begin() + static_cast<std::ptrdiff_t>(at), value);
  } else if (bare) {
    args.push_back(row.option);
  } else if (row.flag) {
    args.push_back(row.option + "=" + value);
  } else {
    args.push_back(row.option);
    args.push_back(value);
  }
  return args;
}

// `dlcbench run` of a tiny case on the host, without the named options: a
// value refused too late would start a run, and a short one.
std::vector<std::string> run_base(const Fixture& f, std::set<std::string> without = {}, bool dry_run = false) {
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"--envs", "host"}, {"--workloads", "fcn5"}, {"--data", "synthetic"}, {"--out", f.out.string()},
      {"--runs", "1"},    {"--warmup", "0"},       {"--iters", "1"},        {"--batch", "2"},
      {"--threads", "1"}};
  std::vector<std::string> args = {"run"};
  for (const auto& [option, value] : defaults)
    if (!without.count(option)) args.insert(args.end(), {option, value});
  if (dry_run) args.push_back("--dry-run");
  return args;
}

std::vector<std::string> worker_base(std::set<std::string> without = {}) {
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"--workload", "fcn5"}, {"--data", "synthetic"}, {"--batch", "2"},
      {"--warmup", "0"},      {"--iters", "1"},        {"--threads", "1"}};
  std::vector<std::string> args = {"worker"};
  for (const auto& [option, value] : defaults)
    if (!without.count(option)) args.insert(args.end(), {option, value});
  return args;
}

std::vector<std::string> micro_worker_base(const std::string& workload, std::set<std::string> without,
                                           std::vector<std::string> extra) {
  std::vector<std::string> args = {"worker", "--workload", workload, "--warmup", "0", "--iters", "1", "--threads", "1"};
  if (!without.count("--size")) args.insert(args.end(), {"--size", workload == "gemm" ? "64" : "1048576"});
  // What `run` always passes for these: gemm's variant, the I/O request size.
  if (workload == "gemm" && !without.count("--variant")) args.insert(args.end(), {"--variant", "sgemm"});
  if (workload != "gemm" && !without.count("--block")) args.insert(args.end(), {"--block", "4096"});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The table. For `run`, refused values are tried on a real run (they must
// stop it before anything is launched) and the accepted one with --dry-run.
std::vector<OptionRow> option_table(const Fixture& f) {
  const std::string not_number = "abc", empty;
  std::vector<OptionRow> rows;
  auto run_row = [&](const std::string& option, std::vector<std::string> refused, const std::string& range,
                     const std::string& accepted, std::set<std::string> without = {}, std::string says = "") {
    without.insert(option);
    OptionRow row{option, run_base(f, without), false, false, std::move(refused), range, accepted, 0,
                  std::move(says), option};
    rows.push_back(std::move(row));
  };
  run_row("--workloads", {empty, ",", "vgg16"}, "empty, unknown names", "fcn5,startup");
  run_row("--suite", {empty, "huge"}, "empty, unknown suites", "default", {"--workloads"});
  run_row("--path", {empty, ",", "/nonexistent-dlcbench-folder"}, "empty, folders that do not exist", "tmpfs",
          {"--workloads"});
  rows.back().base.insert(rows.back().base.end(), {"--workloads", "io-lat"});
  run_row("--backends", {empty, "caffe"}, "empty, unknown back ends", "reference");
  run_row("--device", {empty, "tpu", "cpu,tpu"}, "empty, devices other than cpu and gpu", "cpu");
  run_row("--envs", {empty, ",", "lxd", "docker:cpus=0", "docker:cpus=4097", "runc:cpuset=9999", "docker:cpus=x"},
          "empty, unknown runtimes, options out of range or beyond this machine's CPUs", "host,host");
  run_row("--batch", {empty, "0", "-1", not_number, "1.5", "65537", "64,0"},
          "below 1, above 65536, not whole numbers", "65536");
  run_row("--input", {empty, "tape"}, "empty, other than memory and disk", "memory");
  run_row("--runs", {empty, "0", "-2", not_number, "1.5", "100001"}, "below 1, above 100000, not whole numbers",
          "100000");
  run_row("--warmup", {empty, "-1", not_number, "1000001"}, "below 0, above 1000000, not whole numbers", "0");
  run_row("--iters", {empty, "0", "-1", not_number, "1000001"}, "below 1, above 1000000, not whole numbers",
          "1000000");
  run_row("--threads", {empty, "0", "-2", not_number, "1025"}, "below 1, above 1024, not whole numbers", "1024", {},
          "warning: --threads 1024 is more than the");
  run_row("--data", {empty, "/nonexistent-dlcbench-data"}, "empty, folders without the data set", "synthetic");
  run_row("--out", {empty, f.file.string(), (f.file / "sub").string(), "/proc/dlcbench-no-such-folder"},
          "empty, a file, a path through a file, a file system that takes no folders", (f.dir / "new").string());
  run_row("--image", {empty}, "empty", "example.org/worker:1");
  run_row("--baseline", {empty, "docker"}, "empty, an environment not in --envs", "host");
  run_row("--seed", {empty, "-1", not_number, "1.5", "99999999999999999999"},
          "below 0, above 2^63-1, not whole numbers", "0");
  run_row("--case-timeout", {empty, "0", "-5", not_number, "nan", "inf", "604801"},
          "0 or below, above a week (604800 s), not numbers", "604800");
  run_row("--starts", {empty, "0", "-1", not_number, "10001"}, "below 1, above 10000, not whole numbers", "10000",
          {"--workloads"});
  rows.back().base.insert(rows.back().base.end(), {"--workloads", "startup"});
  // A user's command (`run -- COMMAND`): the command comes first here, as a
  // positional, so the option under test can follow it.
  const std::vector<std::string> command_base = {"run", "/bin/true", "--envs", "host", "--out", f.out.string(), "--dry-run"};
  auto command_row = [&](const std::string& option, std::vector<std::string> refused, const std::string& range,
                         const std::string& accepted, std::vector<std::string> extra = {}) {
    OptionRow row{option, command_base, false, false, std::move(refused), range, accepted, 0, "", option};
    row.base.insert(row.base.end(), extra.begin(), extra.end());
    rows.push_back(std::move(row));
  };
  command_row("--name", {empty, "a/b"}, "empty, characters other than letters, digits, - _ .", "train");
  command_row("--metric", {empty, "(a)(b)", "step [0-9]+", "step ([0-9"},
              "empty, not exactly one capture group, not a regular expression", "step ([0-9.]+)");
  command_row("--metric-unit", {empty}, "empty", "s/step", {"--metric", "step ([0-9.]+)"});
  command_row("--pass-env", {empty, "DLCBENCH_SURELY_UNSET_VARIABLE"}, "empty, variables not set", "PATH");
  command_row("--workdir", {empty, "/nonexistent-dlcbench-folder"}, "empty, folders that do not exist",
              f.dir.path().string());
  command_row("--data-mount", {empty, "relative/path"}, "empty, relative paths", "/mnt/data");
  {
    OptionRow row{"--higher-is-better", command_base, true, false, {"maybe"}, "values other than true and false", "", 0, "",
                  "--higher-is-better"};
    row.base.insert(row.base.end(), {"--metric", "([0-9.]+) img/s"});
    rows.push_back(std::move(row));
  }
  {
    OptionRow row{"command", {"run", "--envs", "host", "--out", f.out.string(), "--dry-run"}, false, true, {}, "none",
                  "/bin/true", 0, "", "command"};
    rows.push_back(std::move(row));
  }
  run_row("--until-cv", {empty, "0", "-2%", not_number, "100%"}, "0 or below, 100% or above, not numbers", "0.5%");
  run_row("--max-runs", {empty, "0", "1", "-1", not_number, "100001"},
          "below 1, above 100000, not above --runs with --until-cv", "2");
  rows.back().base.insert(rows.back().base.end(), {"--until-cv", "2%"});
  run_row("--precision", {empty, "0", "-2%", not_number, "100%"}, "0 or below, 100% or above, not numbers", "0.5%");
  run_row("--margin", {empty, "0", "-2%", not_number, "100%"}, "0 or below, 100% or above, not numbers", "2%");
  run_row("--max-time", {empty, "0", "-5m", not_number, "5x", "1h30", "nan"},
          "0 or below, unknown units, a number without its unit after another, not numbers", "1h30m");
  // run --slurm's knobs (checked before a dry run; Slurm itself checks the rest).
  run_row("--nodes", {empty, "0", "-1", not_number}, "below 1, not whole numbers", "2");
  for (const char* text : {"--nodelist", "--partition", "--account", "--time", "--sbatch-arg", "--cluster-run",
                           "--cluster-node"})
    run_row(text, {empty}, "empty", "x");
  run_row("--stage", {empty, "relative/stage"}, "empty, relative folders", "/tmp/dlcbench-stage");
  run_row("--node-cpu-quota", {empty, "node1", "=0.5", "node1=0", "node1=x"}, "not NODE=CPUS with CPUS above 0",
          "node1=0.5");
  run_row("--allreduce-sizes", {empty, "6", "x", "0", "8K,", "3G"},
          "empty, not whole numbers of floats, above 2G, unknown suffixes", "8K,1M");
  run_row("--allreduce-iterations", {empty, "0", "-1", not_number}, "below 1, not whole numbers", "10");
  run_row("--allreduce", {"maybe"}, "values other than true, false or a count; without --slurm", "");
  rows.back().flag = true;
  rows.back().base.push_back("--slurm");
  run_row("--run-id", {empty, ".hidden", "-dash", "a/b", "a b"}, "empty, characters other than letters, digits, - _ .",
          "my-run_1.0");
  run_row("--run-folder", {empty, "relative/run"}, "empty, relative folders", (f.out / "named").string());
  run_row("--cgroup-parent", {empty, "relative"}, "empty, not starting with /", "/dlcbench-node-x");
  run_row("--store", {empty, "mysql://db/dlcbench"}, "empty, URLs other than postgresql://",
          (f.dir.path() / "store.sqlite").string());
  run_row("--no-store", {"maybe"}, "values other than true, false or a count", "");
  rows.back().flag = true;
  for (const char* flag : {"--keep-images", "--keep-going", "--allow-mismatch", "--dry-run", "--pin-threads",
                           "--no-pin-threads", "--hold-samples", "--no-hold-samples", "--slurm", "--shared-folder",
                           "--take-turns", "--verbose"}) {
    run_row(flag, {"maybe"}, "values other than true, false or a count", "");
    rows.back().flag = true;
    // CLI11 names a negated flag by its positive name ("--pin-threads = maybe").
    if (std::string_view(flag).starts_with("--no-")) rows.back().named_as = "--" + std::string(flag + 5);
  }
  run_row("--resume", {empty, "/nonexistent-dlcbench-run", f.dir.path().string()},
          "empty, folders that hold no run", f.run.string());
  // --resume takes no plan flags: its base is bare.
  rows.back().base = {"run"};

  auto worker_row = [&](const std::string& option, std::vector<std::string> refused, const std::string& range,
                        const std::string& accepted) {
    rows.push_back({option, worker_base({option}), false, false, std::move(refused), range, accepted, 0, "", option});
  };
  worker_row("--workload", {empty, "vgg16"}, "empty, unknown workloads", "alexnet");
  worker_row("--backend", {empty, "caffe"}, "empty, unknown back ends", "reference");
  worker_row("--device", {empty, "tpu"}, "other than cpu and gpu", "cpu");
  worker_row("--batch", {empty, "0", "-1", not_number, "65537"}, "below 1, above 65536, not whole numbers", "1");
  worker_row("--warmup", {empty, "-1", not_number, "1000001"}, "below 0, above 1000000, not whole numbers", "0");
  worker_row("--iters", {empty, "0", "-1", not_number, "1000001"}, "below 1, above 1000000, not whole numbers", "1");
  worker_row("--threads", {empty, "0", "-2", not_number, "1025"}, "below 1, above 1024, not whole numbers", "1");
  worker_row("--seed", {empty, "-1", not_number, "99999999999999999999"}, "below 0, above 2^63-1, not whole numbers",
             "0");
  worker_row("--input", {empty, "tape"}, "other than memory and disk", "memory");
  worker_row("--data", {empty, "/nonexistent-dlcbench-data"}, "empty, folders without the data set", "synthetic");
  // The case as `run` hands it over: one typed JSON object.
  rows.push_back({"--case", {"worker", "--data", "synthetic"}, false, false,
                  {empty, "{", "[]", R"({"workload":"fcn5"})",
                   R"({"workload":"fcn5","backend":"torch","device":"cpu","batch":2,"warmup":0,"iters":1,"threads":0})",
                   R"({"workload":"fcn5","backend":"torch","device":"cpu","batch":1e300,"warmup":0,"iters":1,"threads":1})"},
                  "not a JSON object, a case missing fields, counts out of range or not whole numbers",
                  R"({"workload":"fcn5","backend":"torch","device":"cpu","batch":2,"warmup":0,"iters":1,"threads":1})",
                  0, "", "--case"});
  rows.push_back({"--variant", micro_worker_base("gemm", {"--variant"}, {}), false, false, {empty, "zgemm"},
                  "empty, unknown variants", "dgemm", 0, "", "variant"});
  rows.push_back({"--size", micro_worker_base("gemm", {"--size"}, {}), false, false,
                  {empty, "0", "-1", not_number, "1099511627777"},
                  "below 1, above 2^40, not whole numbers", "1", 0, "", "--size"});
  rows.push_back({"--block", micro_worker_base("io-lat", {"--block"}, {"--path", f.scratch.string()}), false, false,
                  {empty, "0", "-1", not_number, "3000000000"}, "below 1, above 2^31-1, not whole numbers",
                  "4096", 0, "", "--block"});
  rows.push_back({"--mode", micro_worker_base("io-seq", {}, {"--path", f.scratch.string(), "--variant", "write"}),
                  false, false, {empty, "sideways"}, "other than direct and buffered", "buffered", 0, "", "--mode"});
  rows.push_back({"--path", micro_worker_base("io-lat", {}, {}), false, false,
                  {empty, "/nonexistent-dlcbench-folder"}, "empty, folders that do not exist", f.scratch.string(), 0,
                  "", "--path"});
  rows.push_back({"--listen", worker_base(), false, false, {empty, "localhost", "300.1.2.3", "1.2.3"},
                  "other than an IPv4 address", "0.0.0.0", 0, "", "--listen"});
  rows.push_back({"--count-pause", worker_base(), false, false, {empty, "-1", not_number, "11"},
                  "below 0, above 10 seconds, not numbers", "0", 0, "", "--count-pause"});
  for (const char* flag : {"--fingerprint-only", "--json", "--no-accounting", "--hold-samples"})
    rows.push_back({flag, worker_base(), true, false, {"maybe"}, "values other than true, false or a count", "", 0, "",
                    flag});

  const std::vector<std::string> fetch = {"data", "fetch"};
  auto fetch_base = [&](std::vector<std::string> rest) {
    std::vector<std::string> args = fetch;
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
  };
  rows.push_back({"names", fetch_base({"--dir", f.data.string()}), false, true, {empty, "imagenet"},
                  "empty, data sets that cannot be fetched", "cifar10", 0, "", "data set"});
  rows.push_back({"--dir", fetch_base({"cifar10"}), false, false, {empty}, "empty", f.data.string(), 0, "", "--dir"});
  rows.push_back({"--tarball", fetch_base({"cifar10", "--dir", f.data.string()}), false, false,
                  {empty, "/nonexistent-dlcbench.tgz"}, "empty, files that do not exist", f.file.string(), 0, "",
                  "--tarball"});
  // Accepted: the fetch goes ahead, and refuses the file for its checksum.
  rows.push_back({"--force", fetch_base({"cifar10", "--dir", f.data.string(), "--tarball", f.file.string()}), true,
                  false, {"maybe"}, "values other than true, false or a count", "", 1, "sha1", "--force"});

  rows.push_back({"--models", {"list"}, true, false, {"maybe"}, "values other than true, false or a count", "", 0, "",
                  "--models"});
  rows.push_back({"dir", {"report"}, false, true, {empty, "/nonexistent-dlcbench-run", f.dir.path().string()},
                  "empty, folders that hold no run", f.run.string(), 0, "", "folder"});
  rows.push_back({"--details", {"report", f.run.string()}, true, false, {"maybe"},
                  "values other than true, false or a count", "", 0, "", "--details"});
  rows.push_back({"--format", {"report", f.run.string()}, false, false, {empty, "xml"},
                  "other than console, md, csv, json and html", "json", 0, "", "--format"});
  rows.push_back({"--output", {"report", f.run.string()}, false, false,
                  {empty, "/nonexistent-dlcbench-folder/report.md", f.dir.path().string()},
                  "empty, files in folders that do not exist, folders", f.report.string(), 0, "", "-o"});
  rows.push_back({"a", {"compare", f.run.string()}, false, true, {empty, "/nonexistent-dlcbench-run"},
                  "empty, folders that hold no run", f.run.string(), 0, "", "folder"});
  rows.push_back({"b", {"compare", f.run.string()}, false, true, {empty, "/nonexistent-dlcbench-run"},
                  "empty, folders that hold no run", f.run.string(), 0, "", "folder"});
  // k8s: the manifests go to a folder of each row's own (an accepted value
  // writes them; f.out must stay empty).
  auto k8s = [&](const std::string& without) {
    std::vector<std::string> args = {"k8s", "--out", (f.dir / ("k8s" + without)).string(), "--workloads", "fcn5"};
    for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
             {"--nodes", "node-a"}, {"--image", "registry.example.com/dlcbench:1"}, {"--data", "synthetic"}})
      if (option != without) args.insert(args.end(), {option, value});
    return args;
  };
  rows.push_back({"--nodes", k8s("--nodes"), false, false, {empty, "Node-A", "node_a", "a,a", "a..b"},
                  "empty, capitals, '_', a node twice, not a DNS subdomain", "ip-10-0-0-1.ec2.internal", 0, "",
                  "--nodes"});
  rows.push_back({"--namespace", k8s("-namespace"), false, false, {empty, "Bench", "a.b", std::string(64, 'a')},
                  "empty, not a DNS-1123 label", std::string(63, 'a'), 0, "", "--namespace"});
  rows.push_back({"--results-path", k8s("-results-path"), false, false, {empty, "results"}, "empty, relative",
                  "/var/lib/dlcbench/results", 0, "", "--results-path"});
  rows.push_back({"--results-claim", k8s("-results-claim"), false, false, {empty, "Claim", "a_b"},
                  "empty, not a DNS-1123 subdomain", "claim-1.results", 0, "", "--results-claim"});
  rows.push_back({"--run-id", k8s("-run-id"), false, false, {empty, "Run-1", "-r", std::string(25, 'r')},
                  "empty, not a DNS-1123 label of at most 24", std::string(24, 'r'), 0, "", "--run-id"});
  rows.push_back({"--deadline", k8s("-deadline"), false, false, {empty, "0", "-1", "1.5", "604801"},
                  "empty, 0, negative, fractional, above a week", "604800", 0, "", "--deadline"});
  for (const std::string option : {"--cpu-request", "--cpu-limit", "--memory-request", "--memory-limit"})
    rows.push_back({option, k8s(option.substr(1)), false, false, {empty, "0", "-1", "two", "1GB"},
                    "empty, 0, negative, not a Kubernetes quantity", "1m", 0, "", option});
  rows.push_back({"--pod-env", k8s("-pod-env"), false, false, {empty, "NAME", "1 X=y", "DLCBENCH_NODE=x"},
                  "empty, without =, a name Kubernetes refuses, the node's variable", "A=", 0, "", "--pod-env"});
  rows.push_back({"--save-image", k8s("-save-image"), false, false, {empty, "/nonexistent-dlcbench-folder/rootfs.tar"},
                  "empty, files in folders that do not exist", (f.dir / "rootfs.tar").string(), 0, "wrote",
                  "--save-image"});
  // Doctor exits 1 where an installed runtime cannot start containers.
  rows.push_back({"--json", {"doctor"}, true, false, {"maybe"}, "values other than true, false or a count", "", -1, "",
                  "--json"});
  std::filesystem::create_directories(f.dir / "clean-tmp");
  // --clean removes what ended runs left: in a $TMPDIR of its own it finds
  // no mark of this machine's runs, so it removes none of theirs.
  rows.push_back({"--clean", {"doctor"}, true, false, {"maybe"}, "values other than true, false or a count", "", 0, "",
                  "--clean", {{"TMPDIR", (f.dir / "clean-tmp").string()}}});
  return rows;
}

// A verified cifar10 install of a few records, as `data fetch` leaves one.
void write_verified_cifar10(const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  std::vector<std::uint8_t> records(3 * 3073);
  for (std::size_t i = 0; i < records.size(); ++i) records[i] = static_cast<std::uint8_t>(i % 7);
  std::string sums;
  for (const std::string name : {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
                                 "data_batch_5.bin", "test_batch.bin"}) {
    testing::write_bytes(folder / name, records);
    sums += file_digest(folder / name, "sha256") + "  " + name + "\n";
  }
  testing::write_text(folder / "SHA256SUMS", sums);
}

class CliOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_text(f.file, "not a folder\n");
    std::filesystem::create_directories(f.scratch);
    write_verified_cifar10(f.data / "cifar10");
    // A finished run of one launch: what report, compare and --resume read.
    const auto finished = f.dir / "finished";
    auto r = run_dlcbench({"run", "--envs", "host", "--workloads", "fcn5", "--data", "synthetic", "--runs", "1",
                           "--warmup", "0", "--iters", "1", "--batch", "2", "--threads", "1", "--out",
                           finished.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    f.run = testing::only_run_dir(finished);
  }
  Fixture f;
};

TEST_F(CliOptions, EveryBadValueIsRefusedWithExit2AndNamesTheOption) {
  for (const auto& row : option_table(f)) {
    for (const auto& value : row.refused) {
      const auto args = with_value(row, value);
      const auto r = run_dlcbench(args, {}, 300);
      const std::string shown = fmt::format("dlcbench {}", fmt::join(args, " "));
      EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.err << r.out;
      EXPECT_THAT(r.err, HasSubstr(row.named_as)) << shown;
      EXPECT_THAT(r.err, ::testing::Not(HasSubstr("terminate called"))) << shown;
      EXPECT_FALSE(std::filesystem::exists(f.out)) << shown << " wrote " << f.out;
      std::filesystem::remove_all(f.out);
    }
  }
}

TEST_F(CliOptions, TheBoundaryValueOfEveryOptionIsAccepted) {
  for (const auto& row : option_table(f)) {
    // `run` rows: the accepted value with --dry-run, so nothing is measured.
    std::vector<std::string> args = with_value(row, row.accepted, row.flag);
    if (args.front() == "run" && row.option != "--resume") args.push_back("--dry-run");
    if (row.option == "--dry-run") args.pop_back();
    const auto r = run_dlcbench(args, row.env, 300);
    const std::string shown = fmt::format("dlcbench {}", fmt::join(args, " "));
    if (row.accepted_exit >= 0) {
      EXPECT_EQ(r.exit_code, row.accepted_exit) << shown << "\n" << r.err;
    } else {
      EXPECT_NE(r.exit_code, 2) << shown << "\n" << r.err;
    }
    if (!row.accepted_says.empty()) {
      EXPECT_THAT(r.err + r.out, HasSubstr(row.accepted_says)) << shown;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(f.out));
}

// The table covers the real command line: every option of every command
// (help excepted) has a row, so a new option without limits fails here.
TEST(CliOptionsTable, CoversEveryOptionOfEveryCommand) {
  CLI::App app;
  int exit_code = 0;
  cli::add_run_command(app, exit_code);
  cli::WorkerOptions worker_options;  // dlcbench-worker's options, which `dlcbench worker` hands on
  cli::add_worker_options(app, worker_options);
  cli::add_data_command(app, exit_code);
  cli::add_list_command(app, exit_code);
  cli::add_report_command(app, exit_code);
  cli::add_doctor_command(app, exit_code);
  cli::add_k8s_command(app, exit_code);
  Fixture f;
  std::set<std::string> in_table;
  for (const auto& row : option_table(f)) in_table.insert(row.option);
  std::vector<std::string> missing;
  std::function<void(const CLI::App*)> visit = [&](const CLI::App* command) {
    for (const CLI::Option* option : command->get_options()) {
      const auto& long_names = option->get_lnames();
      if (std::find(long_names.begin(), long_names.end(), "help") != long_names.end()) continue;
      const std::string longest = option->get_lnames().empty() ? option->get_name() : "--" + option->get_lnames().front();
      if (!in_table.count(longest)) missing.push_back(command->get_name() + " " + longest);
    }
    for (const CLI::App* sub : command->get_subcommands({})) visit(sub);
  };
  visit(&app);
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "options without a row in option_table()";
}

TEST(CliExitCodes, ParseErrorsAreBadInput) {
  EXPECT_EQ(run_dlcbench({}).exit_code, 2);
  EXPECT_EQ(run_dlcbench({"--frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_dlcbench({"run", "--frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_dlcbench({"list", "extra"}).exit_code, 2);
  EXPECT_EQ(run_dlcbench({"run", "--resume"}).exit_code, 2);
  EXPECT_EQ(run_dlcbench({"data"}).exit_code, 2);
  EXPECT_EQ(run_dlcbench({"--version"}).exit_code, 0);
  EXPECT_EQ(run_dlcbench({"run", "--help"}).exit_code, 0);
  const auto write = run_dlcbench({"report", "/nonexistent-dlcbench-run"});
  EXPECT_EQ(write.exit_code, 2);
  // The all-reduce runs across the nodes of a cluster run only.
  const auto alone = run_dlcbench({"run", "--allreduce", "--envs", "host", "--dry-run"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--slurm"), std::string::npos) << alone.err;
}

}  // namespace
}  // namespace dlcbench
