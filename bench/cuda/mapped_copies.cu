// mapped_copies.cu: device-mapped host memory on one GPU's host link: a kernel reading or writing mapped (zero-copy)
// host memory alone, and beside a copy in the other direction (van Werkhoven et al., Table II: the gap G of
// "transfers colliding with mapped memory transfers", a link's `bw_mapped`). Prints CSV: for each case, the bytes
// the copy and the kernel move and the median, minimum and maximum seconds of each (from a common start event).
// Build and run where nvcc and a GPU exist: nvcc -O2 -std=c++17 bench/cuda/mapped_copies.cu -o mapped && ./mapped
// [--mib N] [--reps N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "timing.cuh"

namespace {

// Coalesced writes of `count` floats to mapped host memory (each warp writes 128 contiguous bytes).
__global__ void write_mapped(float* __restrict__ host, size_t count) {
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < count; k += size_t(gridDim.x) * blockDim.x)
    host[k] = float(k);
}

// Coalesced reads of `count` floats from mapped host memory; one sum per block to device memory keeps the reads.
__global__ void read_mapped(const float* __restrict__ host, size_t count, float* __restrict__ out) {
  float acc = 0;
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < count; k += size_t(gridDim.x) * blockDim.x)
    acc += host[k];
  if (acc == -1.0f) out[blockIdx.x] = acc;  // never true for these data; the compiler cannot drop the loop
}

struct Pair {
  Timing copy, kernel;
};

// The copy on s0 and the kernel on s1, both after one start event: the time of each from that start.
Pair time_pair(cudaStream_t s0, cudaStream_t s1, int reps, const std::function<void()>& copy,
               const std::function<void()>& kernel) {
  TwoTimings t = time_two(s0, s1, reps, copy, kernel);
  return {t.first, t.second};
}

void row(const char* name, size_t copy_bytes, size_t kernel_bytes, int reps, const Pair& p) {
  std::printf("%s,%zu,%zu,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n", name, copy_bytes, kernel_bytes, reps, p.copy.median,
              p.copy.min, p.copy.max, p.kernel.median, p.kernel.min, p.kernel.max);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  size_t mib = 256;
  int reps = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--mib")) mib = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  if (reps < 1) reps = 1;
  const size_t bytes = mib << 20;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  // Pinned buffers for the copies, mapped ones for the kernels, device buffers for both.
  char *pinned_in = nullptr, *pinned_out = nullptr, *dev_in = nullptr, *dev_out = nullptr;
  float *mapped = nullptr, *mapped_dev = nullptr, *sums = nullptr;
  CHECK(cudaMallocHost(&pinned_in, bytes));
  CHECK(cudaMallocHost(&pinned_out, bytes));
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&mapped), bytes, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_dev), mapped, 0));
  CHECK(cudaMalloc(&dev_in, bytes));
  CHECK(cudaMalloc(&dev_out, bytes));
  const int blocks = prop.multiProcessorCount * 8;
  CHECK(cudaMalloc(&sums, blocks * sizeof(float)));
  std::memset(pinned_in, 1, bytes);
  std::memset(mapped, 0, bytes);
  CHECK(cudaMemset(dev_out, 2, bytes));
  cudaStream_t s0, s1;
  CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  std::printf("# gpu: %s\n# driver: %d\n# runtime: %d\n# source: bench/cuda/mapped_copies.cu, CUDA events from one "
              "start event, median of %d timed runs after 3 warm-up runs\n",
              prop.name, driver, runtime, reps);
  std::printf("# cases: copy_h2d, copy_d2h, mapped_write, mapped_read alone; h2d_beside_mapped_write and "
              "d2h_beside_mapped_read: both at once, the kernel's bytes scaled so that the two take about as long "
              "alone\n");
  std::printf("case,copy_bytes,kernel_bytes,reps,copy_median_s,copy_min_s,copy_max_s,kernel_median_s,kernel_min_s,"
              "kernel_max_s\n");
  auto h2d = [&](size_t n) { return [&, n] { CHECK(cudaMemcpyAsync(dev_in, pinned_in, n, cudaMemcpyHostToDevice, s0)); }; };
  auto d2h = [&](size_t n) { return [&, n] { CHECK(cudaMemcpyAsync(pinned_out, dev_out, n, cudaMemcpyDeviceToHost, s0)); }; };
  auto mwrite = [&](size_t n) { return [&, n] { write_mapped<<<blocks, 256, 0, s1>>>(mapped_dev, n / sizeof(float)); }; };
  auto mread = [&](size_t n) { return [&, n] { read_mapped<<<blocks, 256, 0, s1>>>(mapped_dev, n / sizeof(float), sums); }; };
  Pair copy_h2d = time_pair(s0, s1, reps, h2d(bytes), nullptr);
  row("copy_h2d", bytes, 0, reps, copy_h2d);
  Pair copy_d2h = time_pair(s0, s1, reps, d2h(bytes), nullptr);
  row("copy_d2h", bytes, 0, reps, copy_d2h);
  Pair write_alone = time_pair(s0, s1, reps, nullptr, mwrite(bytes));
  row("mapped_write", 0, bytes, reps, write_alone);
  Pair read_alone = time_pair(s0, s1, reps, nullptr, mread(bytes));
  row("mapped_read", 0, bytes, reps, read_alone);
  CHECK(cudaGetLastError());
  // Together: the kernel's bytes in proportion to its rate alone, so that neither runs long alone (at most `bytes`).
  auto scaled = [&](const Timing& copy_alone, const Timing& kernel_alone) {
    double n = double(bytes) * copy_alone.median / kernel_alone.median;
    size_t k = size_t(n) / 4096 * 4096;
    return k < 4096 ? size_t(4096) : (k > bytes ? bytes : k);
  };
  size_t w = scaled(copy_h2d.copy, write_alone.kernel);
  row("h2d_beside_mapped_write", bytes, w, reps, time_pair(s0, s1, reps, h2d(bytes), mwrite(w)));
  size_t r = scaled(copy_d2h.copy, read_alone.kernel);
  row("d2h_beside_mapped_read", bytes, r, reps, time_pair(s0, s1, reps, d2h(bytes), mread(r)));
  CHECK(cudaGetLastError());
  return 0;
}
