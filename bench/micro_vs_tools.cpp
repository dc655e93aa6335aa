// Are dlcbench's micro-benchmark figures the machine's own? Each one runs
// alternately with the reference tool the paper and IBM used, round by round
// in one run (the order flipping every round so drift cancels), and both
// figures are printed with their ratio (dlcbench / reference) and Fieller's
// 95% interval:
//
//   gemm sgemm/dgemm  vs a direct cblas_sgemm / cblas_dgemm loop (minimal_sgemm)
//   hpl               vs hpcc's HPL (same N, one process, the same BLAS threads)
//   stream triad      vs hpcc's SingleSTREAM_Triad (hpcc's array size, 1 thread, as hpcc runs it)
//   io-seq            vs dd oflag=direct / iflag=direct, conv=fsync, and a read after iflag=nocache
//                     (dd copies pseudo-random bytes, as dlcbench writes, not /dev/zero)
//   io-lat            vs ioping -D (mean latency; ioping reports no median)
//
//   micro_vs_tools [--runs N] [--threads T] [--gemm-n N] [--hpl-n N] [--io-path DIR]
//                  [--io-size BYTES] [--only gemm,hpcc,dd,ioping]
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/process.h"
#include "core/scratch_dir.h"
#include "core/statistics.h"
#include "orchestrator/plan.h"

namespace fs = std::filesystem;
using namespace dlcbench;

namespace {

struct Settings {
  int runs = 5;
  int threads = 2;
  int gemm_n = 4096;
  int hpl_n = 8192;
  std::string io_path = "/var/tmp";
  long long io_size = 256LL << 20;
  std::set<std::string> only = {"gemm", "hpcc", "dd", "ioping"};
};

std::vector<std::pair<std::string, std::string>> thread_env(int threads) {
  const std::string t = std::to_string(threads);
  return {{"OMP_NUM_THREADS", t}, {"OPENBLAS_NUM_THREADS", t}, {"MKL_NUM_THREADS", t}};
}

// Runs a command; hands each stdout line to `on_line`; returns stderr.
std::string run(std::vector<std::string> argv, const std::vector<std::pair<std::string, std::string>>& env,
                const std::function<void(const std::string&)>& on_line = {}) {
  ProcessSpec spec{std::move(argv), env, 3600, nullptr, {}, "", -1};
  auto r = run_process(spec, [&](std::string_view line) {
    if (on_line) on_line(std::string(line));
  });
  if (!r.ok()) throw std::runtime_error(spec.argv[0] + " " + r.describe() + "\n" + r.stderr_tail);
  return r.stderr_tail;
}

// `dlcbench worker` on a micro case: its run value (the statistic the
// workload reports, over the measured operations) in seconds, and the work
// of one operation.
std::pair<double, double> worker(const std::vector<std::string>& args, int threads, const std::string& statistic) {
  std::vector<std::string> argv = {DLCBENCH_BINARY, "worker", "--threads", std::to_string(threads)};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<double> seconds;
  double work = 0;
  run(argv, thread_env(threads), [&](const std::string& line) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("type", "") == "sample" && j.value("phase", "") == "measured") {
      seconds.push_back(j["seconds"].get<double>());
      work = j["work"].get<double>();
    }
  });
  if (seconds.empty()) throw std::runtime_error("the worker printed no measured sample");
  return {run_value(statistic, seconds), work};
}

// "268435456 bytes (268 MB, 256 MiB) copied, 0.51 s, 526 MB/s" -> MB/s from
// the bytes and seconds dd printed.
double dd_megabytes_per_second(const std::string& stderr_text) {
  static const std::regex copied(R"((\d+) bytes .*copied, ([0-9.eE+-]+) s)");
  std::smatch m;
  if (!std::regex_search(stderr_text, m, copied)) throw std::runtime_error("dd printed no summary: " + stderr_text);
  return std::stod(m[1]) / std::stod(m[2]) / 1e6;
}

struct Pair {
  std::string name, unit;
  std::vector<double> dlcbench, reference;  // figures, one per round
  std::string note;
};

void print(const std::vector<Pair>& pairs) {
  std::cout << fmt::format("\n{:<34} {:>9} {:>12} {:>12} {:>8} {:>18}  {}\n", "figure", "unit", "dlcbench",
                           "reference", "ratio", "95% CI (Fieller)", "reference tool");
  for (const auto& p : pairs) {
    if (p.dlcbench.empty()) continue;
    const RatioEstimate r = ratio_of_means(p.dlcbench, p.reference);
    std::cout << fmt::format("{:<34} {:>9} {:>12.4g} {:>12.4g} {:>8.3f} {:>18}  {}\n", p.name, p.unit,
                             mean(p.dlcbench), mean(p.reference), r.ratio,
                             p.dlcbench.size() > 1 ? fmt::format("{:.3f} .. {:.3f}", r.ci95_low, r.ci95_high) : "-",
                             p.note);
  }
}

// hpcc's input: its example file with one N, NB 192 and a 1 x 1 grid.
void write_hpcc_input(const fs::path& folder, int n) {
  std::ifstream example("/usr/share/doc/hpcc/examples/_hpccinf.txt");
  if (!example) throw std::runtime_error("no /usr/share/doc/hpcc/examples/_hpccinf.txt: apt-get install hpcc");
  std::ofstream out(folder / "hpccinf.txt");
  std::string line;
  for (int number = 1; std::getline(example, line); ++number) {
    if (number == 6) line = fmt::format("{:<12} Ns", n);
    else if (number == 8) line = "192          NBs";
    else if (number == 11) line = "1            Ps";
    else if (number == 12) line = "1            Qs";
    out << line << "\n";
  }
}

// A file of `bytes` pseudo-random bytes in `folder` (kept for the run).
fs::path random_source(const fs::path& folder, long long bytes) {
  const fs::path file = folder / "random-source";
  if (fs::exists(file) && static_cast<long long>(fs::file_size(file)) == bytes) return file;
  std::ofstream out(file, std::ios::binary);
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> block(1 << 17);  // 1 MiB
  for (long long written = 0; written < bytes; written += 1 << 20) {
    for (auto& word : block) word = rng();
    out.write(reinterpret_cast<const char*>(block.data()), 1 << 20);
  }
  return file;
}

// The summary section of hpccoutf.txt as key -> value.
std::map<std::string, std::string> hpcc_summary(const fs::path& file) {
  std::map<std::string, std::string> values;
  std::ifstream in(file);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find("Begin of Summary section") != std::string::npos) inside = true;
    else if (line.find("End of Summary section") != std::string::npos) inside = false;
    else if (inside && line.find('=') != std::string::npos)
      values[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--runs") s.runs = std::stoi(value);
    else if (flag == "--threads") s.threads = std::stoi(value);
    else if (flag == "--gemm-n") s.gemm_n = std::stoi(value);
    else if (flag == "--hpl-n") s.hpl_n = std::stoi(value);
    else if (flag == "--io-path") s.io_path = value;
    else if (flag == "--io-size") s.io_size = std::stoll(value);
    else if (flag == "--only") {
      auto items = split_list(value);
      s.only = std::set<std::string>(items.begin(), items.end());
    } else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  const std::string t = std::to_string(s.threads);
  Pair sgemm{"gemm sgemm n=" + std::to_string(s.gemm_n), "GFLOP/s", {}, {}, "cblas_sgemm loop (minimal_sgemm)"};
  Pair dgemm{"gemm dgemm n=" + std::to_string(s.gemm_n), "GFLOP/s", {}, {}, "cblas_dgemm loop (minimal_sgemm)"};
  Pair hpl{"hpl n=" + std::to_string(s.hpl_n), "GFLOP/s", {}, {}, "hpcc HPL_Tflops (1 process, P=Q=1)"};
  Pair triad{"stream triad (hpcc's size, 1 thread)", "GB/s", {}, {}, "hpcc SingleSTREAM_Triad"};
  Pair triad_all{"stream triad (hpcc's size, all threads)", "GB/s", {}, {}, "hpcc SingleSTREAM_Triad"};
  const std::string mib = std::to_string(s.io_size >> 20);
  Pair wd{"io-seq write direct", "MB/s", {}, {}, "dd bs=1M oflag=direct"};
  Pair rd{"io-seq read direct", "MB/s", {}, {}, "dd bs=1M iflag=direct"};
  Pair wb{"io-seq write buffered (fsync)", "MB/s", {}, {}, "dd bs=1M conv=fsync"};
  Pair rb{"io-seq read buffered (cache dropped)", "MB/s", {}, {}, "dd bs=1M after dd iflag=nocache"};
  Pair lat{"io-lat mean 4 KiB O_DIRECT", "ms", {}, {}, "ioping -D -i 0 -S 64m (avg)"};
  Pair lat_median{"io-lat median 4 KiB O_DIRECT", "ms", {}, {}, "ioping -D -i 0 -S 64m (avg)"};

  std::cerr << fmt::format("micro_vs_tools: {} rounds, {} threads, I/O in {} ({} MiB)\n", s.runs, s.threads,
                           s.io_path, mib);
  // In memory where it can be: dd's source is read from here.
  if (!std::getenv("TMPDIR") && fs::is_directory("/dev/shm")) setenv("TMPDIR", "/dev/shm", 1);
  ScratchDir scratch("dlcbench-micro-vs-tools");
  std::string vector_size;  // hpcc's STREAM array, learnt from its first run
  for (int round = 0; round < s.runs; ++round) {
    const bool dlcbench_first = round % 2 == 0;
    auto both = [&](const std::function<void()>& ours, const std::function<void()>& theirs) {
      if (dlcbench_first) ours(), theirs();
      else theirs(), ours();
    };
    if (s.only.count("gemm")) {
      for (auto [pair, variant, letter] : {std::tuple{&sgemm, "sgemm", "s"}, std::tuple{&dgemm, "dgemm", "d"}}) {
        both(
            [&] {
              auto [sec, work] = worker({"--workload", "gemm", "--variant", variant, "--size",
                                         std::to_string(s.gemm_n), "--warmup", "1", "--iters", "5"},
                                        s.threads, "mean");
              pair->dlcbench.push_back(work / sec / 1e9);
            },
            [&] {
              double sec = 0;
              run({MINIMAL_SGEMM_BINARY, letter, std::to_string(s.gemm_n), "1", "5", t}, thread_env(s.threads),
                  [&](const std::string& line) { sec = std::stod(line); });
              pair->reference.push_back(2.0 * s.gemm_n * s.gemm_n * s.gemm_n / sec / 1e9);
            });
      }
    }
    if (s.only.count("hpcc")) {
      std::map<std::string, std::string> summary;
      auto run_hpcc = [&] {
        const fs::path folder = scratch.path() / fmt::format("hpcc-{}", round);
        fs::create_directories(folder);
        write_hpcc_input(folder, s.hpl_n);
        // A single MPI process started without mpirun (a singleton), as
        // root where the machine is a container.
        auto env = thread_env(s.threads);
        env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
        env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        run({"env", "-C", folder.string(), "hpcc"}, env);
        summary = hpcc_summary(folder / "hpccoutf.txt");
        fs::remove_all(folder);
        if (!summary.count("HPL_Tflops")) throw std::runtime_error("hpcc wrote no HPL_Tflops");
        hpl.reference.push_back(std::stod(summary["HPL_Tflops"]) * 1e3);
        triad.reference.push_back(std::stod(summary["SingleSTREAM_Triad"]));
        triad_all.reference.push_back(std::stod(summary["SingleSTREAM_Triad"]));
      };
      auto run_ours = [&](const std::string& elements) {
        auto [sec, work] = worker({"--workload", "hpl", "--size", std::to_string(s.hpl_n), "--warmup", "0", "--iters",
                                   "1"},
                                  s.threads, "mean");
        hpl.dlcbench.push_back(work / sec / 1e9);
        for (auto [pair, threads] : {std::pair{&triad, 1}, std::pair{&triad_all, s.threads}}) {
          auto [tsec, twork] = worker({"--workload", "stream", "--variant", "triad", "--size", elements,
                                       "--warmup", "1", "--iters", "10"},
                                      threads, "min");
          pair->dlcbench.push_back(twork / tsec / 1e9);
        }
      };
      // hpcc sizes STREAM's arrays itself from N: the first round runs it
      // first to learn the size; later rounds alternate.
      if (vector_size.empty()) {
        run_hpcc();
        vector_size = summary.at("STREAM_VectorSize");
        run_ours(vector_size);
      } else {
        both([&] { run_ours(vector_size); }, run_hpcc);
      }
    }
    if (s.only.count("dd")) {
      const fs::path file = fs::path(s.io_path) / fmt::format("dlcbench-dd-{}", getpid());
      // dd writes what it reads: zeros from /dev/zero would let a virtual
      // disk that detects zero writes (QEMU's detect-zeroes) skip the work,
      // and dlcbench writes non-zero data. So dd copies pseudo-random bytes
      // from memory (a tmpfs file), as fast to read as /dev/zero.
      const fs::path source = random_source(scratch.path(), s.io_size);
      const std::string count = std::to_string(s.io_size >> 20);
      auto dd = [&](std::vector<std::string> args) {
        std::vector<std::string> command = {"dd", "bs=1M"};
        command.insert(command.end(), args.begin(), args.end());
        return run(command, {});
      };
      auto ours = [&](const std::string& variant, const std::string& mode) {
        auto [sec, work] = worker({"--workload", "io-seq", "--variant", variant, "--mode", mode, "--size",
                                   std::to_string(s.io_size), "--block", "1048576", "--path", s.io_path, "--warmup",
                                   "1", "--iters", "3"},
                                  s.threads, "mean");
        return work / sec / 1e6;
      };
      both([&] { wd.dlcbench.push_back(ours("write", "direct")); },
           [&] { wd.reference.push_back(dd_megabytes_per_second(dd({"if=" + source.string(), "of=" + file.string(), "count=" + count, "oflag=direct"}))); });
      both([&] { rd.dlcbench.push_back(ours("read", "direct")); },
           [&] { rd.reference.push_back(dd_megabytes_per_second(dd({"if=" + file.string(), "of=/dev/null", "iflag=direct"}))); });
      both([&] { wb.dlcbench.push_back(ours("write", "buffered")); },
           [&] { wb.reference.push_back(dd_megabytes_per_second(dd({"if=" + source.string(), "of=" + file.string(), "count=" + count, "conv=fsync"}))); });
      both([&] { rb.dlcbench.push_back(ours("read", "buffered")); },
           [&] {
             dd({"if=" + file.string(), "iflag=nocache", "count=0"});  // drops the file's pages
             rb.reference.push_back(dd_megabytes_per_second(dd({"if=" + file.string(), "of=/dev/null"})));
           });
      fs::remove(file);
    }
    if (s.only.count("ioping")) {
      both(
          [&] {
            std::vector<std::string> args = {"--workload", "io-lat", "--size", std::to_string(64 << 20), "--block",
                                             "4096", "--path", s.io_path, "--warmup", "1", "--iters", "200"};
            auto [sec, work] = worker(args, s.threads, "mean");
            lat.dlcbench.push_back(sec * 1e3);
            auto [median_sec, median_work] = worker(args, s.threads, "median");
            lat_median.dlcbench.push_back(median_sec * 1e3);
          },
          [&] {
            // -B: count, time, iops, speed, min, avg, max, mdev, ...; ioping 1.3
            // prints the times in nanoseconds.
            std::string line;
            run({"ioping", "-B", "-D", "-i", "0", "-c", "201", "-s", "4k", "-S", "64m", s.io_path}, {},
                [&](const std::string& l) { line = l; });
            std::istringstream fields(line);
            double count, time, iops, speed, min, avg;
            if (!(fields >> count >> time >> iops >> speed >> min >> avg)) throw std::runtime_error("ioping: " + line);
            lat.reference.push_back(avg / 1e6);
            lat_median.reference.push_back(avg / 1e6);
          });
    }
    std::cerr << fmt::format("round {}/{} done\n", round + 1, s.runs);
  }
  print({sgemm, dgemm, hpl, triad, triad_all, wd, rd, wb, rb, lat, lat_median});
  return 0;
}
