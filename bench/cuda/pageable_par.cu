// pageable_par.cu: pageable (unpinned) copies beside other copies on one GPU's host link, each issued from its own
// host thread on its own stream, as the branches of a `par` are (AHEAD eq. 9: a pageable copy is staged through a
// pinned driver buffer in host memory). Prints CSV: for each case and size, the end time of each of the two copies
// from a common start (host clock; the start is taken when both threads are ready), median, minimum and maximum.
// Build and run where nvcc and a GPU exist: nvcc -O2 -std=c++17 bench/cuda/pageable_par.cu -o pageable && ./pageable
// [--reps N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "timing.cuh"

namespace {

using Clock = std::chrono::steady_clock;

// One copy: a direction, host memory kind, and the buffers it uses (one set per branch, never shared).
struct Copy {
  bool to_device = true;
  bool pinned = false;
  char* host = nullptr;
  char* dev = nullptr;
  cudaStream_t stream = nullptr;
  void run(size_t n) const {
    if (to_device) CHECK(cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, stream));
    else CHECK(cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
  }
};

// Runs `a` (and `b`, when given, `delay` seconds later) from two threads, `reps` timed runs after 3 warm-up ones; the
// end of each from the moment both threads are released.
TwoTimings time_pair(const Copy& a, const Copy* b, size_t n, int reps, double delay = 0.0) {
  std::vector<double> ta, tb;
  for (int r = -3; r < reps; ++r) {
    CHECK(cudaDeviceSynchronize());
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    Clock::time_point start, end_a, end_b;
    auto body = [&](const Copy& c, Clock::time_point& end, double wait) {
      CHECK(cudaSetDevice(0));
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      while (wait > 0 && std::chrono::duration<double>(Clock::now() - start).count() < wait) {
      }
      c.run(n);
      end = Clock::now();
    };
    std::thread first(body, std::cref(a), std::ref(end_a), 0.0);
    std::thread second;
    if (b) second = std::thread(body, std::cref(*b), std::ref(end_b), delay);
    while (ready.load() < (b ? 2 : 1)) {
    }
    start = Clock::now();
    go.store(true, std::memory_order_release);
    first.join();
    if (b) second.join();
    if (r >= 0) {
      ta.push_back(std::chrono::duration<double>(end_a - start).count());
      if (b) tb.push_back(std::chrono::duration<double>(end_b - start).count());
    }
  }
  if (!b) tb.push_back(0.0);
  return {timing_of(ta), timing_of(tb)};
}

// One host thread copies `n` bytes as `k` copies of n / k, each on its own stream (`streams`, at least k), then waits
// for them all: the end from the first issue, `reps` timed runs after 3 warm-up ones (van Werkhoven et al. section V
// split a copy over streams; gpmc's `copy ... { streams = k }`).
TwoTimings time_split(bool to_device, char* host, char* dev, const std::vector<cudaStream_t>& streams, size_t n,
                      int k, int reps) {
  std::vector<double> t;
  const size_t part = n / size_t(k);
  for (int r = -3; r < reps; ++r) {
    CHECK(cudaDeviceSynchronize());
    Clock::time_point start = Clock::now();
    for (int i = 0; i < k; ++i) {
      size_t at = size_t(i) * part, len = i + 1 == k ? n - at : part;
      if (to_device) CHECK(cudaMemcpyAsync(dev + at, host + at, len, cudaMemcpyHostToDevice, streams[size_t(i)]));
      else CHECK(cudaMemcpyAsync(host + at, dev + at, len, cudaMemcpyDeviceToHost, streams[size_t(i)]));
    }
    for (int i = 0; i < k; ++i) CHECK(cudaStreamSynchronize(streams[size_t(i)]));
    if (r >= 0) t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return {timing_of(t), Timing{0, 0, 0}};
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = reps_option(argc, argv);
  const size_t sizes[] = {size_t(16) << 20, size_t(64) << 20, size_t(256) << 20};
  const size_t most = sizes[2];
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  // Two branches, each with a pageable and a pinned host buffer and a device buffer of its own.
  Copy base[2];
  char* pageable[2];
  char* pinned[2];
  for (int k = 0; k < 2; ++k) {
    pageable[k] = static_cast<char*>(std::malloc(most));
    if (!pageable[k]) return 1;
    std::memset(pageable[k], 1 + k, most);  // resident before any copy
    CHECK(cudaMallocHost(&pinned[k], most));
    std::memset(pinned[k], 3 + k, most);
    CHECK(cudaMalloc(&base[k].dev, most));
    CHECK(cudaMemset(base[k].dev, 5 + k, most));
    CHECK(cudaStreamCreateWithFlags(&base[k].stream, cudaStreamNonBlocking));
  }
  auto copy = [&](int k, bool to_device, bool is_pinned) {
    Copy c = base[k];
    c.to_device = to_device;
    c.pinned = is_pinned;
    c.host = is_pinned ? pinned[k] : pageable[k];
    return c;
  };
  std::printf("# gpu: %s\n# driver: %d\n# runtime: %d\n# source: bench/cuda/pageable_par.cu, host clock from a common "
              "release of the threads to each copy's cudaStreamSynchronize, median of %d timed runs after 3 warm-up "
              "runs\n",
              prop.name, driver, runtime, reps);
  std::printf("# cases: NAME alone (second_* = 0), A+B: A on one thread and stream, B on another, at once (A+B@T: B "
              "issued T after A); first_* is A's end, second_* B's, both from A's start; split_MEMORY_DIR_kK: one "
              "thread's copy of `bytes` as K copies of bytes / K on K streams, first_* the end of the last\n");
  std::printf("case,bytes,reps,first_median_s,first_min_s,first_max_s,second_median_s,second_min_s,second_max_s\n");
  struct Case {
    const char* name;
    bool a_h2d, a_pinned;
    int b;  // -1: alone
    bool b_h2d, b_pinned;
    double b_delay = 0.0;  // B issued this many seconds after A
  };
  const Case cases[] = {
      {"pageable_h2d", true, false, -1, false, false},
      {"pageable_d2h", false, false, -1, false, false},
      {"pinned_h2d", true, true, -1, false, false},
      {"pinned_d2h", false, true, -1, false, false},
      {"pageable_h2d+pinned_h2d", true, false, 1, true, true},
      {"pageable_d2h+pinned_d2h", false, false, 1, false, true},
      {"pageable_h2d+pageable_h2d", true, false, 1, true, false},
      {"pageable_d2h+pageable_d2h", false, false, 1, false, false},
      {"pageable_h2d+pageable_d2h", true, false, 1, false, false},
      {"pageable_h2d+pinned_d2h", true, false, 1, false, true},
      {"pinned_h2d+pinned_h2d", true, true, 1, true, true},
      {"pinned_d2h+pinned_d2h", false, true, 1, false, true},
      // B issued while A runs: 2 ms after A (the 16 MiB pageable copies take about 2 ms alone).
      {"pageable_h2d+pinned_h2d@2ms", true, false, 1, true, true, 2e-3},
      {"pageable_d2h+pinned_d2h@2ms", false, false, 1, false, true, 2e-3},
      {"pageable_h2d+pageable_h2d@2ms", true, false, 1, true, false, 2e-3},
      {"pinned_h2d+pageable_h2d@2ms", true, true, 1, true, false, 2e-3},
  };
  for (size_t n : sizes) {
    for (const Case& c : cases) {
      Copy a = copy(0, c.a_h2d, c.a_pinned), b = copy(1, c.b_h2d, c.b_pinned);
      TwoTimings t = time_pair(a, c.b < 0 ? nullptr : &b, n, reps, c.b_delay);
      print_two(c.name, n, reps, t.first, t.second);
    }
  }
  // A copy split over k streams from one thread: pageable and pinned, each direction (split_MEMORY_DIR_kK rows).
  std::vector<cudaStream_t> split_streams(8);
  for (auto& st : split_streams) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (size_t n : sizes)
    for (bool is_pinned : {false, true})
      for (bool to_device : {true, false})
        for (int k : {1, 2, 4, 8}) {
          TwoTimings t = time_split(to_device, is_pinned ? pinned[0] : pageable[0], base[0].dev, split_streams, n, k,
                                    reps);
          std::string name = std::string("split_") + (is_pinned ? "pinned_" : "pageable_") +
                             (to_device ? "h2d" : "d2h") + "_k" + std::to_string(k);
          print_two(name, n, reps, t.first, t.second);
        }
  CHECK(cudaGetLastError());
  return 0;
}
