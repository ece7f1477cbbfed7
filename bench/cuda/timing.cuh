// timing.cuh: what the bench/cuda programs share: a CUDA call checked (exit with the error), and the timing of a
// batch of work enqueued on one or more streams with CUDA events (warm-up runs, then the median, min and max).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t status_ = (call);                                                           \
    if (status_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

struct Timing {
  double median, min, max;
};

// Times `launch` (which enqueues on the given streams) with CUDA events: every stream starts after an event on stream
// 0 and stream 0 waits for them all; 3 warm-up runs, then `reps` timed ones.
inline Timing time_it(const std::vector<cudaStream_t>& streams, int reps, const std::function<void()>& launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<cudaEvent_t> done(streams.size());
  for (auto& ev : done) CHECK(cudaEventCreate(&ev));
  std::vector<double> t;
  for (int r = -3; r < reps; ++r) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, streams[0]));
    for (size_t i = 1; i < streams.size(); ++i) CHECK(cudaStreamWaitEvent(streams[i], start, 0));
    launch();
    for (size_t i = 1; i < streams.size(); ++i) {
      CHECK(cudaEventRecord(done[i], streams[i]));
      CHECK(cudaStreamWaitEvent(streams[0], done[i], 0));
    }
    CHECK(cudaEventRecord(stop, streams[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r >= 0) t.push_back(ms * 1e-3);
  }
  for (auto& ev : done) CHECK(cudaEventDestroy(ev));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}
