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

}  // namespace

int main(int argc, char** argv) {
  const int reps = reps_option(argc, argv);
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
    auto row = [&](const char* name, const std::function<void()>& a, const std::function<void()>& b) {
      TwoTimings t = time_two(s[0], s[1], reps, a, b);
      print_two(name, bytes, reps, t.first, t.second);
    };
    row("d2d", copy(0), nullptr);
    row("triad", kernel(0), nullptr);
    row("d2d+d2d", copy(0), copy(1));
    row("d2d+triad", copy(0), kernel(1));
    row("triad+d2d", kernel(0), copy(1));
    row("triad+triad", kernel(0), kernel(1));
    CHECK(cudaGetLastError());
  }
  return 0;
}
