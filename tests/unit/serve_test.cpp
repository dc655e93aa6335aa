// The serving workload's server and load generator, in one process over
// loopback, with a network that is a small function: every request is
// answered, with its own answer, its latency counted from when it was due,
// and the server's events come once each, in order.
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <numeric>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/case_spec.h"
#include "core/errors.h"
#include "core/statistics.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/serve/load_generator.h"
#include "workloads/serve/server.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

constexpr std::size_t kInput = 16;

// The index of the largest input: what the "network" predicts.
std::int32_t largest(const float* x) {
  return static_cast<std::int32_t>(std::max_element(x, x + kInput) - x);
}

struct ServedLoad {
  serve::LoadResult load;
  std::vector<std::string> events;
  std::uint64_t served = 0;
};

// Runs the server on a thread and the load against it.
ServedLoad serve_and_load(serve::LoadSettings load, const serve::Inference& inference, int threads = 2) {
  std::promise<std::uint16_t> listening;
  ServedLoad out;
  std::mutex lock;
  serve::ServerEvents events;
  events.listening = [&](std::uint16_t port, const std::vector<std::string>&) { listening.set_value(port); };
  events.start_measuring = [&] {
    std::lock_guard guard(lock);
    out.events.push_back("start_measuring");
  };
  events.shutdown = [&](std::uint64_t served) {
    std::lock_guard guard(lock);
    out.events.push_back("shutdown");
    out.served = served;
  };
  std::thread server([&] { serve::run_server({threads, "127.0.0.1", 0, kInput}, inference, events); });
  load.port = listening.get_future().get();
  load.input_floats = kInput;
  try {
    out.load = serve::generate_load(load);
  } catch (...) {
    server.detach();  // the test fails; the process ends with it
    throw;
  }
  server.join();
  return out;
}

TEST(Serve, ClosedLoopAnswersEveryRequestAndTheServerSeesTheMeasuredPhaseOnce) {
  serve::LoadSettings load;
  load.connections = 3;
  load.warmup = 10;
  load.requests = 200;
  std::atomic<int> calls{0};
  const ServedLoad s = serve_and_load(load, [&](const float* x) {
    ++calls;
    return largest(x);
  });
  ASSERT_EQ(s.load.requests.size(), 210u);
  EXPECT_EQ(calls.load(), 210);
  EXPECT_EQ(s.served, 210u);
  EXPECT_EQ(s.events, (std::vector<std::string>{"start_measuring", "shutdown"}));
  int warmups = 0;
  for (const auto& r : s.load.requests) {
    EXPECT_GT(r.seconds, 0.0);
    EXPECT_FALSE(r.failed);
    // The server's own part is inside the latency the client saw.
    EXPECT_LE(r.queue_seconds + r.compute_seconds, r.seconds + 1e-6);
    warmups += r.warmup;
  }
  EXPECT_EQ(warmups, 10);
  EXPECT_GT(s.load.measured_seconds, 0.0);
}

TEST(Serve, OpenLoopKeepsItsRateAndCountsAStallFromWhenEachRequestWasDue) {
  // One inference thread that stalls once for 200 ms at request 50: at 200
  // requests/s the ~40 requests due during the stall wait behind it, and
  // their latency, counted from when each was due, shows it (a generator
  // that waited for the server would have sent them late and hidden it).
  serve::LoadSettings load;
  load.connections = 2;
  load.rate = 200;
  load.warmup = 20;
  load.requests = 180;
  std::atomic<int> calls{0};
  const ServedLoad s = serve_and_load(
      load,
      [&](const float* x) {
        if (++calls == 50) std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return largest(x);
      },
      1);
  ASSERT_EQ(s.load.requests.size(), 200u);
  std::vector<double> measured;
  for (const auto& r : s.load.requests)
    if (!r.warmup) measured.push_back(r.seconds);
  // The stalled request itself waited 200 ms; the ones behind it less and
  // less: more than 10% of the measured requests waited over 50 ms.
  EXPECT_GT(*std::max_element(measured.begin(), measured.end()), 0.19);
  EXPECT_GT(percentile(measured, 0.9), 0.05);
  EXPECT_LT(percentile(measured, 0.5), 0.05);
  // 180 requests at 200/s take about 0.9 s, however the server stalled.
  EXPECT_NEAR(s.load.measured_seconds, 0.9, 0.3);
}

TEST(Serve, AFailedInferenceIsCountedNotHidden) {
  serve::LoadSettings load;
  load.connections = 1;
  load.warmup = 0;
  load.requests = 20;
  std::atomic<int> calls{0};
  const ServedLoad s = serve_and_load(load, [&](const float* x) -> std::int32_t {
    if (++calls % 5 == 0) throw std::runtime_error("out of memory");
    return largest(x);
  });
  int failed = 0;
  for (const auto& r : s.load.requests) failed += r.failed;
  EXPECT_EQ(failed, 4);
}

TEST(Serve, NoServerIsAnErrorThatNamesTheAddress) {
  serve::LoadSettings load;
  load.port = 9;  // discard: nothing listens on it here
  load.input_floats = kInput;
  load.timeout_seconds = 0.3;
  try {
    serve::generate_load(load);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot connect to the server at 127.0.0.1:9"));
  }
}

TEST(ServeCase, TheOptionsMakeOneCaseNamedByItsLoad) {
  MicroPlanSettings settings;
  auto open = expand_micro_cases(parse_micro_request("serve/alexnet:threads=2,rate=37.5,requests=500"), settings);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].id(), "serve/alexnet/t2/r37.5");
  EXPECT_EQ(open[0].iters, 500);
  EXPECT_EQ(open[0].warmup, 50);
  EXPECT_EQ(open[0].clients, 2);
  const auto closed = expand_micro_cases(parse_micro_request("serve:clients=4"), settings);
  EXPECT_EQ(closed[0].id(), "serve/fcn5/t2/c4");
  // The case travels to the worker and the load generator as JSON.
  const CaseSpec back = nlohmann::json(open[0]).get<CaseSpec>();
  EXPECT_EQ(back.id(), open[0].id());
  EXPECT_DOUBLE_EQ(back.rate, 37.5);
  for (const char* bad : {"serve:rate=fast", "serve:rate=-3", "serve:threads=0", "serve:requests=0"})
    EXPECT_THROW(expand_micro_cases(parse_micro_request(bad), settings), UsageError) << bad;
  try {
    expand_micro_cases(parse_micro_request("serve:rate=fast"), settings);
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("rate=fast is not a number of requests per second"));
  }
}

TEST(ServeCase, EachLatencyQuantileIsARunStatistic) {
  std::vector<double> xs(1000);
  std::iota(xs.begin(), xs.end(), 1.0);
  EXPECT_DOUBLE_EQ(run_value("p50", xs), percentile(xs, 0.5));
  EXPECT_DOUBLE_EQ(run_value("p99", xs), percentile(xs, 0.99));
  EXPECT_DOUBLE_EQ(run_value("p99.9", xs), percentile(xs, 0.999));
  EXPECT_THROW(run_value("p42", xs), std::invalid_argument);
}

}  // namespace
}  // namespace dlcbench
