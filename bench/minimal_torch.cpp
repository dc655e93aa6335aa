// The smallest honest training loops of the paper's four networks in
// LibTorch, written the way the PyTorch C++ examples write them, with no
// dlcbench code: the yardstick for dlcbench's own measurement. Same shapes,
// initialisation and optimiser settings as src/workloads/models, synthetic
// data of the real shapes already in memory, timing around forward,
// backward and the optimiser step only.
//
//   minimal_torch WORKLOAD BATCH WARMUP ITERS THREADS   -> prints the mean s/batch
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include <torch/torch.h>

namespace nn = torch::nn;

namespace {

void init_weights(nn::Module& net) {
  torch::NoGradGuard no_grad;
  for (auto& m : net.modules(false)) {
    if (auto* l = m->as<nn::Linear>()) {
      nn::init::xavier_uniform_(l->weight);
      nn::init::zeros_(l->bias);
    } else if (auto* c = m->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(c->weight, 0, torch::kFanOut, torch::kReLU);
      if (c->options.bias()) nn::init::zeros_(c->bias);
    }
  }
}

nn::Sequential fcn5() {
  return nn::Sequential(nn::Linear(784, 2048), nn::Sigmoid(), nn::Linear(2048, 4096), nn::Sigmoid(),
                        nn::Linear(4096, 1024), nn::Sigmoid(), nn::Linear(1024, 10));
}

nn::Sequential alexnet() {
  auto conv = [](int64_t in, int64_t out) { return nn::Conv2d(nn::Conv2dOptions(in, out, 5).padding(2)); };
  return nn::Sequential(conv(3, 32), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2)),
                        conv(32, 32), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2)),
                        conv(32, 64), nn::ReLU(), nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2)),
                        nn::Flatten(), nn::Linear(64 * 3 * 3, 10));
}

nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

struct BlockImpl : nn::Module {
  BlockImpl(int64_t in, int64_t out, int64_t stride_)
      : conv1(register_module("conv1", conv3x3(in, out, stride_))),
        bn1(register_module("bn1", nn::BatchNorm2d(out))),
        conv2(register_module("conv2", conv3x3(out, out, 1))),
        bn2(register_module("bn2", nn::BatchNorm2d(out))),
        stride(stride_),
        pad(out - in) {}
  torch::Tensor forward(torch::Tensor x) {
    auto y = conv2(torch::relu(bn1(conv1(x))));
    auto s = x;
    if (stride > 1) s = s.slice(2, 0, c10::nullopt, stride).slice(3, 0, c10::nullopt, stride);
    if (pad > 0) s = torch::constant_pad_nd(s, {0, 0, 0, 0, 0, pad});
    return bn2(y + s);
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  int64_t stride, pad;
};
TORCH_MODULE(Block);

nn::Sequential resnet56() {
  nn::Sequential net(conv3x3(3, 16, 1), nn::BatchNorm2d(16), nn::Functional(torch::relu));
  int64_t in = 16;
  for (int64_t out : {16, 32, 64})
    for (int b = 0; b < 9; ++b) {
      net->push_back(Block(in, out, out != in ? 2 : 1));
      in = out;
    }
  net->push_back(nn::AdaptiveAvgPool2d(1));
  net->push_back(nn::Flatten());
  net->push_back(nn::Linear(64, 10));
  return net;
}

struct LanguageModelImpl : nn::Module {
  LanguageModelImpl()
      : embed(register_module("embed", nn::Embedding(10000, 256))),
        lstm(register_module("lstm", nn::LSTM(nn::LSTMOptions(256, 256).num_layers(2)))),
        decoder(register_module("decoder", nn::Linear(256, 10000))) {
    torch::NoGradGuard no_grad;
    for (auto& p : parameters()) p.uniform_(-0.1, 0.1);
  }
  nn::Embedding embed;
  nn::LSTM lstm;
  nn::Linear decoder;
};
TORCH_MODULE(LanguageModel);

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s fcn5|alexnet|resnet56|lstm BATCH WARMUP ITERS THREADS\n", argv[0]);
    return 2;
  }
  const std::string workload = argv[1];
  const int64_t batch = std::atoi(argv[2]);
  const int warmup = std::atoi(argv[3]), iters = std::atoi(argv[4]);
  torch::set_num_threads(std::atoi(argv[5]));
  torch::manual_seed(42);

  std::function<double()> step;  // one timed training step, returns the loss
  nn::Sequential classifier;
  LanguageModel lm{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer;
  torch::Tensor x, y, tokens;
  std::tuple<torch::Tensor, torch::Tensor> state;
  int64_t windows = 0;
  int step_index = 0;

  if (workload == "lstm") {
    lm = LanguageModel();
    optimizer = std::make_unique<torch::optim::SGD>(lm->parameters(), torch::optim::SGDOptions(1.0));
    const int64_t words = 929589, steps = words / batch;
    tokens = torch::randint(0, 10000, {steps, batch}, torch::kInt64);
    windows = (steps - 1) / 32;
    state = {torch::zeros({2, batch, 256}), torch::zeros({2, batch, 256})};
    step = [&] {
      const int64_t start = (step_index % windows) * 32;
      auto input = tokens.narrow(0, start, 32), target = tokens.narrow(0, start + 1, 32);
      optimizer->zero_grad();
      auto [out, next] = lm->lstm(lm->embed(input), state);
      auto loss = torch::nn::functional::cross_entropy(lm->decoder(out.reshape({-1, 256})), target.reshape({-1}));
      loss.backward();
      nn::utils::clip_grad_norm_(lm->parameters(), 5.0);
      optimizer->step();
      state = {std::get<0>(next).detach(), std::get<1>(next).detach()};
      return loss.item<double>();
    };
  } else {
    std::vector<int64_t> shape = {8192, 784};
    if (workload == "fcn5") {
      classifier = fcn5();
    } else if (workload == "alexnet") {
      classifier = alexnet();
      shape = {8192, 3, 32, 32};
    } else if (workload == "resnet56") {
      classifier = resnet56();
      shape = {8192, 3, 32, 32};
    } else {
      std::fprintf(stderr, "unknown workload %s\n", workload.c_str());
      return 2;
    }
    init_weights(*classifier);
    const double lr = workload == "fcn5" ? 0.05 : 0.01;
    optimizer = std::make_unique<torch::optim::SGD>(classifier->parameters(),
                                                    torch::optim::SGDOptions(lr).momentum(0.9));
    x = torch::randn(shape);
    y = torch::randint(0, 10, {shape[0]}, torch::kInt64);
    const int64_t batches = shape[0] / batch;
    step = [&, batches] {
      const int64_t start = (step_index % batches) * batch;
      auto xb = x.narrow(0, start, batch), yb = y.narrow(0, start, batch);
      optimizer->zero_grad();
      auto loss = torch::nn::functional::cross_entropy(classifier->forward(xb), yb);
      loss.backward();
      optimizer->step();
      return loss.item<double>();
    };
  }

  double measured = 0;
  for (step_index = 0; step_index < warmup + iters; ++step_index) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    const auto t1 = std::chrono::steady_clock::now();
    if (step_index >= warmup) measured += std::chrono::duration<double>(t1 - t0).count();
  }
  std::printf("%.9f\n", measured / iters);
  return 0;
}
