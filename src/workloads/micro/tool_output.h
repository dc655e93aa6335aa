// Parsers for what the external tools print (dd, ioping, fio, hpcc), and
// hpcc's input file. Each parser throws ToolOutputError naming the tool and
// quoting what it could not read, so a tool version that prints something
// else fails loudly instead of giving a wrong figure.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace dlcbench {

struct ToolOutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// dd's transfer summary (stderr, LC_ALL=C), e.g.
// "67108864 bytes (67 MB, 64 MiB) copied, 0.172653 s, 389 MB/s".
struct DdFigures {
  std::int64_t bytes = 0;
  double seconds = 0;
};
DdFigures parse_dd_output(const std::string& text);

// ioping -B (batch mode): one line of raw statistics, times in nanoseconds:
// "requests total_ns iops bytes_per_s min_ns avg_ns max_ns mdev_ns [...]".
// ioping leaves its first request (a warm-up) out of them.
struct IopingFigures {
  std::int64_t requests = 0;
  double total_ns = 0, min_ns = 0, avg_ns = 0, max_ns = 0, mdev_ns = 0;
};
IopingFigures parse_ioping_batch(const std::string& text);

// fio --output-format=json, the first job's figures for `direction`
// ("read" or "write"). A job that reports an error throws.
struct FioFigures {
  std::int64_t io_bytes = 0;
  double bw_bytes = 0;       // bytes per second, as fio computes it
  double runtime_ms = 0;
  double mean_latency_ns = 0;  // completion latency (clat) mean
};
FioFigures parse_fio_json(const std::string& text, const std::string& direction);

// hpcc's hpccoutf.txt: the key=value lines between "Begin of Summary
// section." and "End of Summary section.". Throws when there is no summary.
std::map<std::string, std::string> parse_hpcc_summary(const std::string& text);
// A summary value as a number; throws naming the key when missing or not one.
double hpcc_value(const std::map<std::string, std::string>& summary, const std::string& key);
// Whether hpcc's own checks failed: HPL's residual line says FAILED, or a
// test reports errors in the summary.
std::string hpcc_failure(const std::string& text, const std::map<std::string, std::string>& summary);

// hpccinf.txt (the HPL.dat format) for one process (P = Q = 1), matrix
// order n, block size nb.
std::string hpcc_input(std::int64_t n, int nb);

}  // namespace dlcbench
