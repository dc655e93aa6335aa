// Does every back end learn? Trains each network with each back end on its
// real data set for a few hundred steps, from each back end's own seeded
// initial weights, and prints the training loss along the way: the mean
// over windows of 50 steps. A back end learns as LibTorch does when its
// last window's mean loss is within 10% of LibTorch's and well below its
// first window's.
//
//   loss_curves [--backends torch,onednn,reference] [--workloads fcn5,alexnet,resnet56,lstm]
//               [--steps 300] [--batch 64] [--threads 2] [--data DIR]
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.h"
#include "core/errors.h"
#include "data/dataset.h"
#include "data/training_data.h"
#include "orchestrator/plan.h"
#include "workloads/registry.h"

using namespace dlcbench;

int main(int argc, char** argv) {
  std::vector<std::string> backends = {"torch", "onednn", "reference"};
  std::vector<std::string> workloads_list = {"fcn5", "alexnet", "resnet56", "lstm"};
  int steps = 300, batch = 64, threads = 2;
  const int window = 50;
  std::string data = default_data_root().string();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--backends") backends = split_list(value);
    else if (flag == "--workloads") workloads_list = split_list(value);
    else if (flag == "--steps") steps = std::stoi(value);
    else if (flag == "--batch") batch = std::stoi(value);
    else if (flag == "--threads") threads = std::stoi(value);
    else if (flag == "--data") data = value;
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  std::cout << fmt::format("training loss, mean of each {} steps, batch {}, {} threads, data {}\n", window, batch,
                           threads, data);
  for (const auto& name : workloads_list) {
    const WorkloadInfo* w = find_workload(name);
    if (!w) throw std::runtime_error("unknown workload " + name);
    TrainingData training;
    try {
      training = load_training_data(w->model.data_need(), data, batch, 42);
    } catch (const std::exception& e) {
      std::cout << fmt::format("{}: no data ({}); `dlcbench data fetch {}` gets it\n", name, e.what(), w->dataset());
      continue;
    }
    std::map<std::string, std::vector<double>> windows;
    for (const auto& b : backends) {
      std::unique_ptr<Backend> backend;
      try {
        backend = make_backend(b, threads);
      } catch (const UsageError& e) {
        std::cout << fmt::format("{} {}: left out: {}\n", name, b, e.what());
        continue;
      }
      CaseSpec spec;
      spec.workload = name;
      spec.backend = b;
      spec.batch = batch;
      auto session = backend->prepare(*w, training, spec);
      double sum = 0;
      for (int step = 0; step < steps; ++step) {
        session->load_batch(static_cast<std::size_t>(step));
        sum += session->train_step();
        if ((step + 1) % window == 0) {
          windows[b].push_back(sum / window);
          sum = 0;
        }
      }
    }
    std::cout << fmt::format("{:<9} {:<10}", name, "steps");
    for (int s = window; s <= steps; s += window) std::cout << fmt::format(" {:>7}", s);
    std::cout << "  learns as torch\n";
    const auto& torch = windows["torch"];
    for (const auto& [b, losses] : windows) {
      std::cout << fmt::format("{:<9} {:<10}", "", b);
      for (double l : losses) std::cout << fmt::format(" {:>7.4f}", l);
      const bool learns = losses.size() > 1 && losses.back() < 0.8 * losses.front();
      const bool as_torch = !torch.empty() && std::abs(losses.back() - torch.back()) <= 0.1 * torch.back();
      std::cout << fmt::format("  {}\n", learns && as_torch ? "yes" : learns ? "learns, not as torch" : "NO");
    }
  }
  return 0;
}
