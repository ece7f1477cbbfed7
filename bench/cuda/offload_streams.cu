// offload_streams.cu: van Werkhoven et al.'s streams strategy measured on one GPU: n floats copied in, a kernel of
// `k` dependent FMAs per element, n floats copied out, split over S streams (1 = the explicit strategy) and issued
// breadth first (every h2d copy, then every kernel, then every d2h copy), as gpmc's offload engine issues them.
// Also each stage alone over the whole data, the implicit strategy (the kernel on mapped host memory) and the hybrid
// one (copies in, output written to mapped host memory). Prints CSV; docs/validation.md reports it.
// Build and run where nvcc and a GPU exist: nvcc -O2 -std=c++17 bench/cuda/offload_streams.cu -o offload && ./offload
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "timing.cuh"

// k dependent FMAs on each element: 2 k flops, 4 bytes read and 4 written.
__global__ void work(const float* in, float* out, size_t n, int k) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int j = 0; j < k; ++j) x = fmaf(x, 0.999999f, 1e-7f);
  out[i] = x;
}

int main(int argc, char** argv) {
  size_t n = size_t(64) << 20;  // floats
  int k = 2048, reps = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--floats")) n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--fmas")) k = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  const size_t bytes = n * sizeof(float);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CHECK(cudaDriverGetVersion(&driver));
  float *host_in = nullptr, *host_out = nullptr, *dev_in = nullptr, *dev_out = nullptr;
  CHECK(cudaMallocHost(&host_in, bytes));
  CHECK(cudaMallocHost(&host_out, bytes));
  CHECK(cudaMalloc(&dev_in, bytes));
  CHECK(cudaMalloc(&dev_out, bytes));
  for (size_t i = 0; i < n; ++i) host_in[i] = 1.0f;
  const int block = 256;
  std::vector<cudaStream_t> streams(64);
  for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::printf("# gpu: %s\n# driver: %d\n# async_engine_count: %d\n# sms: %d\n", prop.name, driver,
              prop.asyncEngineCount, prop.multiProcessorCount);
  std::printf("# source: bench/cuda/offload_streams.cu, CUDA events, median of %d timed runs after 3 warm-up runs\n", reps);
  std::printf("# floats: %zu\n# fmas_per_float: %d\n", n, k);
  std::printf("case,streams,median_s,min_s,max_s\n");
  std::vector<cudaStream_t> one{streams[0]};
  auto row = [](const char* what, int s, Timing t) {
    std::printf("%s,%d,%.6e,%.6e,%.6e\n", what, s, t.median, t.min, t.max);
    std::fflush(stdout);
  };
  row("h2d_alone", 1, time_it(one, reps, [&] { CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, one[0])); }));
  row("kernel_alone", 1, time_it(one, reps, [&] {
        work<<<unsigned((n + block - 1) / block), block, 0, one[0]>>>(dev_in, dev_out, n, k);
        CHECK(cudaGetLastError());
      }));
  row("d2h_alone", 1, time_it(one, reps, [&] { CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, one[0])); }));
  // Over s streams, issued breadth first: every stream's input copy, then the kernels, then (streams) every output
  // copy; hybrid: the kernels write their output to the mapped host buffer instead.
  auto offload = [&](int s, bool hybrid) {
    std::vector<cudaStream_t> used(streams.begin(), streams.begin() + s);
    const size_t chunk = n / size_t(s);  // n is a multiple of 64
    return time_it(used, reps, [&] {
      for (int i = 0; i < s; ++i)
        CHECK(cudaMemcpyAsync(dev_in + i * chunk, host_in + i * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, used[size_t(i)]));
      float* out = hybrid ? host_out : dev_out;
      for (int i = 0; i < s; ++i) {
        work<<<unsigned((chunk + block - 1) / block), block, 0, used[size_t(i)]>>>(dev_in + i * chunk, out + i * chunk, chunk, k);
        CHECK(cudaGetLastError());
      }
      if (!hybrid)
        for (int i = 0; i < s; ++i)
          CHECK(cudaMemcpyAsync(host_out + i * chunk, dev_out + i * chunk, chunk * sizeof(float), cudaMemcpyDeviceToHost, used[size_t(i)]));
    });
  };
  for (int s : {1, 2, 4, 8, 16, 32, 64}) row("streams", s, offload(s, false));
  // The implicit strategy: the kernel reads and writes host memory through the mapping of the pinned buffers
  // (unified addressing: the host pointers are valid on the device); no copy.
  row("implicit", 1, time_it(one, reps, [&] {
        work<<<unsigned((n + block - 1) / block), block, 0, one[0]>>>(host_in, host_out, n, k);
        CHECK(cudaGetLastError());
      }));
  // The hybrid strategy: each stream copies its input in and its kernel writes its output to host memory directly.
  for (int s : {1, 2, 4, 8, 16, 32, 64}) row("hybrid", s, offload(s, true));
  // A check that the kernel ran: every output element is the same value.
  CHECK(cudaDeviceSynchronize());
  for (size_t i = 1; i < n; i += n / 7)
    if (host_out[i] != host_out[0]) {
      std::fprintf(stderr, "offload_streams: outputs differ at %zu\n", i);
      return 1;
    }
  return 0;
}
