// d2d_par.cu: device-to-device copies beside another copy or a memory-bound kernel on one GPU, on two streams at
// once: whether a GPU's d2d copies (cudaMemcpyAsync within device memory) share its memory bandwidth with each other
// and with kernels, or take turns. Prints CSV: for each case and size, the end of the work on each stream from one
// start event (CUDA events), median, minimum and maximum over the timed runs.
// Build and run where nvcc and a GPU exist: nvcc -O2 -std=c++17 bench/cuda/d2d_par.cu -o d2d_par && ./d2d_par
// [--reps N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "timing.cuh"

namespace {

// a = b + s c over `count` floats: reads 8 B and writes 4 B per float (a triad, as the calibration's).
__global__ void triad(float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, size_t count) {
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < count; k += size_t(gridDim.x) * blockDim.x)
    a[k] = b[k] + 3.0f * c[k];
}

struct Pair {
  Timing first, second;
};

// `first` on s0 and `second` (may be empty) on s1, both after one start event: the end of each from that start.
Pair time_pair(cudaStream_t s0, cudaStream_t s1, int reps, const std::function<void()>& first,
               const std::function<void()>& second) {
  cudaEvent_t start, done0, done1;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&done0));
  CHECK(cudaEventCreate(&done1));
  std::vector<double> t0, t1;
  for (int r = -3; r < reps; ++r) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, s0));
    CHECK(cudaStreamWaitEvent(s1, start, 0));
    first();
    if (second) second();
    CHECK(cudaEventRecord(done0, s0));
    CHECK(cudaEventRecord(done1, s1));
    CHECK(cudaDeviceSynchronize());
    float a = 0, b = 0;
    CHECK(cudaEventElapsedTime(&a, start, done0));
    CHECK(cudaEventElapsedTime(&b, start, done1));
    if (r >= 0) {
      t0.push_back(a * 1e-3);
      t1.push_back(second ? b * 1e-3 : 0.0);
    }
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(done0));
  CHECK(cudaEventDestroy(done1));
  auto stats = [](std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return Timing{t[t.size() / 2], t.front(), t.back()};
  };
  return {stats(t0), stats(t1)};
}

void row(const char* name, size_t bytes, int reps, const Pair& p) {
  std::printf("%s,%zu,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n", name, bytes, reps, p.first.median, p.first.min,
              p.first.max, p.second.median, p.second.min, p.second.max);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  for (int i = 1; i + 1 < argc; i += 2)
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  if (reps < 1) reps = 1;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  const size_t most = size_t(256) << 20;
  // Each stream's own buffers: a copy's source and destination, a triad's three arrays.
  char* buf[2][3];
  for (auto& stream_bufs : buf)
    for (auto& b : stream_bufs) {
      CHECK(cudaMalloc(&b, most));
      CHECK(cudaMemset(b, 1, most));
    }
  cudaStream_t s[2];
  for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const int blocks = prop.multiProcessorCount * 8;
  std::printf("# gpu: %s\n# driver: %d\n# runtime: %d\n# source: bench/cuda/d2d_par.cu, CUDA events from one start "
              "event, median of %d timed runs after 3 warm-up runs\n",
              prop.name, driver, runtime, reps);
  std::printf("# cases: NAME alone (second_* = 0), A+B: A on stream 0, B on stream 1, at once; a d2d copy moves "
              "`bytes` (reads and writes them), a triad writes `bytes` from two arrays of `bytes`\n");
  std::printf("case,bytes,reps,first_median_s,first_min_s,first_max_s,second_median_s,second_min_s,second_max_s\n");
  for (size_t bytes : {size_t(64) << 20, most}) {
    auto copy = [&](int k) {
      return [&, k, bytes] { CHECK(cudaMemcpyAsync(buf[k][1], buf[k][0], bytes, cudaMemcpyDeviceToDevice, s[k])); };
    };
    auto kernel = [&](int k) {
      return [&, k, bytes] {
        triad<<<blocks, 256, 0, s[k]>>>(reinterpret_cast<float*>(buf[k][0]), reinterpret_cast<float*>(buf[k][1]),
                                        reinterpret_cast<float*>(buf[k][2]), bytes / sizeof(float));
      };
    };
    row("d2d", bytes, reps, time_pair(s[0], s[1], reps, copy(0), nullptr));
    row("triad", bytes, reps, time_pair(s[0], s[1], reps, kernel(0), nullptr));
    row("d2d+d2d", bytes, reps, time_pair(s[0], s[1], reps, copy(0), copy(1)));
    row("d2d+triad", bytes, reps, time_pair(s[0], s[1], reps, copy(0), kernel(1)));
    row("triad+d2d", bytes, reps, time_pair(s[0], s[1], reps, kernel(0), copy(1)));
    row("triad+triad", bytes, reps, time_pair(s[0], s[1], reps, kernel(0), kernel(1)));
    CHECK(cudaGetLastError());
  }
  return 0;
}
