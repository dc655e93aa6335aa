// The reference for dlcbench's gemm: the plainest cblas_sgemm / cblas_dgemm
// loop, no dlcbench code. Prints the mean seconds of the measured calls.
//
//   minimal_sgemm s|d N WARMUP ITERS THREADS
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

extern "C" void openblas_set_num_threads(int);

template <class T>
double mean_seconds(int n, int warmup, int iters, void (*gemm)(int, const T*, const T*, T*)) {
  const auto elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<T> a(elements), b(elements), c(elements);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<T> uniform(-1, 1);
  for (auto& x : a) x = uniform(rng);
  for (auto& x : b) x = uniform(rng);
  double total = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    const auto start = std::chrono::steady_clock::now();
    gemm(n, a.data(), b.data(), c.data());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i >= warmup) total += seconds;
  }
  return total / iters;
}

void sgemm(int n, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
void dgemm(int n, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
}

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: minimal_sgemm s|d N WARMUP ITERS THREADS\n");
    return 2;
  }
  const std::string precision = argv[1];
  const int n = std::atoi(argv[2]), warmup = std::atoi(argv[3]), iters = std::atoi(argv[4]);
  openblas_set_num_threads(std::atoi(argv[5]));
  const double seconds = precision == "s" ? mean_seconds<float>(n, warmup, iters, sgemm)
                                          : mean_seconds<double>(n, warmup, iters, dgemm);
  std::printf("%.9f\n", seconds);
  return 0;
}
