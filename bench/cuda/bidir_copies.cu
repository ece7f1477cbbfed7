// bidir_copies.cu: pinned host-to-device and device-to-host copies of one GPU, each alone and both at once on two
// streams, over sizes from 4 KiB to --max-mib MiB: the measurements behind the bidirectional-copy rows of
// docs/validation.md. Prints CSV (bytes per direction, then the median, minimum and maximum seconds of each case).
// Build and run where nvcc and a GPU exist: nvcc -O2 -std=c++17 bench/cuda/bidir_copies.cu -o bidir && ./bidir
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "timing.cuh"

int main(int argc, char** argv) {
  size_t max_mib = 256;
  int reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-mib")) max_mib = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  const size_t max_bytes = max_mib << 20;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  char *host_in = nullptr, *host_out = nullptr, *dev_in = nullptr, *dev_out = nullptr;
  CHECK(cudaMallocHost(&host_in, max_bytes));
  CHECK(cudaMallocHost(&host_out, max_bytes));
  CHECK(cudaMalloc(&dev_in, max_bytes));
  CHECK(cudaMalloc(&dev_out, max_bytes));
  std::memset(host_in, 1, max_bytes);
  CHECK(cudaMemset(dev_out, 2, max_bytes));
  cudaStream_t s0, s1;
  CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  std::printf("# gpu: %s\n# driver: %d\n# runtime: %d\n# async_engine_count: %d\n", prop.name, driver, runtime,
              prop.asyncEngineCount);
  std::printf("# source: bench/cuda/bidir_copies.cu, CUDA events, median of %d timed runs after 3 warm-up runs\n", reps);
  std::printf("bytes,h2d_median_s,h2d_min_s,h2d_max_s,d2h_median_s,d2h_min_s,d2h_max_s,both_median_s,both_min_s,both_max_s\n");
  for (size_t n = 4096; n <= max_bytes; n *= 2) {
    Timing h2d = time_it({s0}, reps, [&] { CHECK(cudaMemcpyAsync(dev_in, host_in, n, cudaMemcpyHostToDevice, s0)); });
    Timing d2h = time_it({s0}, reps, [&] { CHECK(cudaMemcpyAsync(host_out, dev_out, n, cudaMemcpyDeviceToHost, s0)); });
    Timing both = time_it({s0, s1}, reps, [&] {
      CHECK(cudaMemcpyAsync(dev_in, host_in, n, cudaMemcpyHostToDevice, s0));
      CHECK(cudaMemcpyAsync(host_out, dev_out, n, cudaMemcpyDeviceToHost, s1));
    });
    std::printf("%zu,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n", n, h2d.median, h2d.min, h2d.max, d2h.median,
                d2h.min, d2h.max, both.median, both.min, both.max);
    std::fflush(stdout);
  }
  return 0;
}
