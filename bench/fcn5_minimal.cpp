// The smallest honest FCN-5 training loop in LibTorch, written the way the
// PyTorch C++ examples write one. No dlcbench code: it is the yardstick for
// dlcbench's own measurement overhead.
//
//   fcn5_minimal BATCH WARMUP ITERS THREADS   -> prints the mean s/batch
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <torch/torch.h>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s BATCH WARMUP ITERS THREADS\n", argv[0]);
    return 2;
  }
  const int64_t batch = std::atoi(argv[1]);
  const int warmup = std::atoi(argv[2]), iters = std::atoi(argv[3]);
  torch::set_num_threads(std::atoi(argv[4]));
  torch::manual_seed(42);

  torch::nn::Sequential net(torch::nn::Linear(784, 2048), torch::nn::Sigmoid(),
                            torch::nn::Linear(2048, 4096), torch::nn::Sigmoid(),
                            torch::nn::Linear(4096, 1024), torch::nn::Sigmoid(),
                            torch::nn::Linear(1024, 10));
  for (auto& p : net->named_parameters()) {
    torch::NoGradGuard no_grad;
    if (p.key().find("weight") != std::string::npos)
      torch::nn::init::xavier_uniform_(p.value());
    else
      torch::nn::init::zeros_(p.value());
  }
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));

  const int64_t examples = 8192;
  auto x = torch::randn({examples, 784});
  auto y = torch::randint(0, 10, {examples}, torch::kInt64);

  double measured = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    const int64_t start = (i % (examples / batch)) * batch;
    auto xb = x.narrow(0, start, batch), yb = y.narrow(0, start, batch);
    const auto t0 = std::chrono::steady_clock::now();
    optimizer.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(xb), yb);
    loss.backward();
    optimizer.step();
    (void)loss.item<float>();
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= warmup) measured += std::chrono::duration<double>(t1 - t0).count();
  }
  std::printf("%.9f\n", measured / iters);
  return 0;
}
