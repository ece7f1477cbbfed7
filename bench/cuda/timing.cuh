// timing.cuh: what the bench/cuda programs share: a CUDA call checked (exit with the error), the timing of a batch of
// work enqueued on one or more streams with CUDA events (warm-up runs, then the median, min and max), the timing of
// two streams' work from one start, and the CSV row of two such times.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

inline Timing timing_of(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

struct TwoTimings {
  Timing first, second;
};

// `first` enqueued on s0 and `second` on s1, both after one start event on s0: the end of each stream's work from
// that start (0 for one not given); 3 warm-up runs, then `reps` timed ones.
inline TwoTimings time_two(cudaStream_t s0, cudaStream_t s1, int reps, const std::function<void()>& first,
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
    if (first) first();
    if (second) second();
    CHECK(cudaEventRecord(done0, s0));
    CHECK(cudaEventRecord(done1, s1));
    CHECK(cudaDeviceSynchronize());
    float a = 0, b = 0;
    CHECK(cudaEventElapsedTime(&a, start, done0));
    CHECK(cudaEventElapsedTime(&b, start, done1));
    if (r >= 0) {
      t0.push_back(first ? a * 1e-3 : 0.0);
      t1.push_back(second ? b * 1e-3 : 0.0);
    }
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(done0));
  CHECK(cudaEventDestroy(done1));
  return {timing_of(t0), timing_of(t1)};
}

// One CSV row: case,bytes,reps, then the median, minimum and maximum of each of the two times.
inline void print_two(const std::string& name, size_t bytes, int reps, const Timing& a, const Timing& b) {
  std::printf("%s,%zu,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n", name.c_str(), bytes, reps, a.median, a.min, a.max,
              b.median, b.min, b.max);
  std::fflush(stdout);
}

// `--reps N` from the command line (at least 1), else `fallback`.
inline int reps_option(int argc, char** argv, int fallback = 10) {
  int reps = fallback;
  for (int i = 1; i + 1 < argc; i += 2)
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  return reps < 1 ? 1 : reps;
}
