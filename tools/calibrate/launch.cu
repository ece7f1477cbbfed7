// launch.cu: tools/calibrate's launch-cost micro-benchmarks (empty CUDA kernels, NCCL operations); prints a CSV.
// The cost of issuing work from the host, which sets the floor of small collectives (docs/calibration.md,
// "Launch costs"). NCCL is optional and loaded at run time (--nccl-lib), so no NCCL header is needed to build.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(cudaError_t status, const char* call, int line) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("launch.cu:") + std::to_string(line) + ": " + call + ": " +
                             cudaGetErrorString(status));
}
#define CHECK(call) check((call), #call, __LINE__)

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stats {
  double median = 0, min = 0, max = 0;
};

Stats summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.front(), v.back()};
}

void row(const char* benchmark, const char* what, long long count, double bytes, int reps, Stats s) {
  std::printf("%s,%s,%lld,%.0f,%d,%.6e,%.6e,%.6e\n", benchmark, what, count, bytes, reps, s.median, s.min, s.max);
}

__global__ void empty_kernel() {}

// Empty kernels on one stream: `issue` is the host time per launch of a batch issued back to back (the rate at
// which one thread can launch), `batch` the time per launch until the batch has run, `round_trip` one launch
// followed by cudaStreamSynchronize.
void measure_kernels(int reps, int grid) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int batch = 1000;
  for (int i = 0; i < 100; ++i) empty_kernel<<<grid, 128, 0, s>>>();
  CHECK(cudaStreamSynchronize(s));
  std::vector<double> issue, done, trip;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    for (int i = 0; i < batch; ++i) empty_kernel<<<grid, 128, 0, s>>>();
    double t1 = now();
    CHECK(cudaStreamSynchronize(s));
    double t2 = now();
    issue.push_back((t1 - t0) / batch);
    done.push_back((t2 - t0) / batch);
  }
  CHECK(cudaGetLastError());
  for (int r = 0; r < reps * 50; ++r) {
    double t0 = now();
    empty_kernel<<<grid, 128, 0, s>>>();
    CHECK(cudaStreamSynchronize(s));
    trip.push_back(now() - t0);
  }
  std::string what = "grid" + std::to_string(grid);
  row("kernel_issue", what.c_str(), 1, 0, reps, summarise(issue));
  row("kernel_batch", what.c_str(), 1, 0, reps, summarise(done));
  row("kernel_round_trip", what.c_str(), 1, 0, reps * 50, summarise(trip));
  CHECK(cudaStreamDestroy(s));
}

// The NCCL entry points used here, as the library's public API declares them (opaque communicator; ncclFloat32
// is 7 and ncclSum 0 in nccl.h's enums; ncclSuccess is 0). ncclSend and ncclRecv (NCCL 2.7 and later) may be
// missing: the point-to-point rows are then left out.
using Comm = void*;
struct Nccl {
  int (*get_version)(int*);
  int (*comm_init_all)(Comm*, int, const int*);
  int (*comm_destroy)(Comm);
  int (*all_reduce)(const void*, void*, size_t, int, int, Comm, cudaStream_t);
  int (*group_start)();
  int (*group_end)();
  int (*send)(const void*, size_t, int, int, Comm, cudaStream_t) = nullptr;
  int (*recv)(void*, size_t, int, int, Comm, cudaStream_t) = nullptr;
};

template <typename F>
void bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw std::runtime_error(std::string("NCCL library lacks ") + name);
}

void nccl_check(int status, const char* what) {
  if (status != 0) throw std::runtime_error(std::string(what) + " returned NCCL error " + std::to_string(status));
}

// nccl-tests' timing of one operation issued by `one_iteration` over `n` communicators: 5 warm-up operations,
// then `iters` issued in a row and every stream synchronised (the time per operation is the wall time over
// iters, `reps` times), and `reps` x 10 single operations each followed by the synchronisation.
template <typename Issue>
void time_operation(const char* iter_name, const char* trip_name, const std::string& what, int n, double bytes,
                    int reps, const std::vector<cudaStream_t>& streams, Issue one_iteration) {
  const int iters = 20;
  auto sync_all = [&] {
    for (int c = 0; c < n; ++c) CHECK(cudaStreamSynchronize(streams[size_t(c)]));
  };
  for (int w = 0; w < 5; ++w) one_iteration();
  sync_all();
  std::vector<double> per_iter, trip;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    for (int i = 0; i < iters; ++i) one_iteration();
    sync_all();
    per_iter.push_back((now() - t0) / iters);
  }
  for (int r = 0; r < reps * 10; ++r) {
    double t0 = now();
    one_iteration();
    sync_all();
    trip.push_back(now() - t0);
  }
  row(iter_name, what.c_str(), n, bytes, reps, summarise(per_iter));
  row(trip_name, what.c_str(), n, bytes, reps * 10, summarise(trip));
}

// `comms` single-rank communicators on the same GPU stand for the GPUs one host thread drives in a group
// (nccl-tests -g N): their launches are serialised on the host as they would be across N GPUs; the kernels
// themselves are one-rank ones.
//   - all-reduce: one ncclAllReduce per communicator in a group (nccl-tests' all_reduce_perf);
//   - point-to-point: per communicator `pairs` ncclSend and `pairs` ncclRecv to and from its only rank (NCCL
//     allows a rank to send to itself), all in one group, as alltoall_perf posts a send and a receive for each
//     of its ranks: the host's cost of posting grouped sends and receives, beyond one operation's launch.
void measure_nccl(const Nccl& nccl, int reps) {
  int version = 0;
  nccl_check(nccl.get_version(&version), "ncclGetVersion");
  std::fprintf(stderr, "launch: NCCL version code %d\n", version);
  std::printf("# nccl_version: %d\n", version);
  const int max_comms = 8, max_pairs = 8;
  std::vector<Comm> comms(max_comms);
  std::vector<cudaStream_t> streams(max_comms);
  int dev = 0;
  for (int c = 0; c < max_comms; ++c) {
    nccl_check(nccl.comm_init_all(&comms[size_t(c)], 1, &dev), "ncclCommInitAll");
    CHECK(cudaStreamCreateWithFlags(&streams[size_t(c)], cudaStreamNonBlocking));
  }
  size_t max_bytes = size_t(1) << 20;
  void *send = nullptr, *recv = nullptr;
  CHECK(cudaMalloc(&send, max_bytes));
  CHECK(cudaMalloc(&recv, max_bytes));
  for (int n : {1, 2, 4, 8})
    for (size_t bytes : {size_t(0), size_t(8), size_t(1024), size_t(65536), max_bytes})
      time_operation("nccl_allreduce_iter", "nccl_allreduce_round_trip", "comms" + std::to_string(n), n,
                     double(bytes), reps, streams, [&] {
                       nccl_check(nccl.group_start(), "ncclGroupStart");
                       for (int c = 0; c < n; ++c)
                         nccl_check(nccl.all_reduce(send, recv, bytes / 4, 7, 0, comms[size_t(c)], streams[size_t(c)]),
                                    "ncclAllReduce");
                       nccl_check(nccl.group_end(), "ncclGroupEnd");
                     });
  if (nccl.send && nccl.recv) {
    // Each receive lands in its own part of `recv` (at most max_pairs x 64 KiB); every send reads `send`.
    for (int n : {1, 8})
      for (int pairs : {1, 2, 4, max_pairs})
        for (size_t bytes : {size_t(8), size_t(65536)})
          time_operation("nccl_p2p_iter", "nccl_p2p_round_trip",
                         "comms" + std::to_string(n) + "_pairs" + std::to_string(pairs), n, double(bytes), reps,
                         streams, [&] {
                           nccl_check(nccl.group_start(), "ncclGroupStart");
                           for (int c = 0; c < n; ++c)
                             for (int k = 0; k < pairs; ++k) {
                               nccl_check(nccl.send(send, bytes / 4, 7, 0, comms[size_t(c)], streams[size_t(c)]),
                                          "ncclSend");
                               nccl_check(nccl.recv(static_cast<char*>(recv) + size_t(k) * bytes, bytes / 4, 7, 0,
                                                    comms[size_t(c)], streams[size_t(c)]),
                                          "ncclRecv");
                             }
                           nccl_check(nccl.group_end(), "ncclGroupEnd");
                         });
  } else {
    std::fprintf(stderr, "launch: this NCCL has no ncclSend/ncclRecv: point-to-point rows left out\n");
  }
  for (int c = 0; c < max_comms; ++c) {
    nccl.comm_destroy(comms[size_t(c)]);
    CHECK(cudaStreamDestroy(streams[size_t(c)]));
  }
  CHECK(cudaFree(send));
  CHECK(cudaFree(recv));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string nccl_lib;
    int reps = 30;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--nccl-lib" && i + 1 < argc) nccl_lib = argv[++i];
      else if (arg == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
      else if (arg == "--help" || arg == "-h") {
        std::printf("launch [--nccl-lib PATH/libnccl.so.2] [--reps N]\n"
                    "Measures kernel launch costs on device 0 (and NCCL's with --nccl-lib); prints a CSV.\n");
        return 0;
      } else {
        throw std::runtime_error("unknown option `" + arg + "` (see --help)");
      }
    }
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("# gpu: %s\n# driver: %d\n# runtime: %d\n# sms: %d\n", prop.name, driver, runtime,
                prop.multiProcessorCount);
    std::printf("# source: tools/calibrate/launch.cu, host wall clock (steady_clock), median of the repetitions\n");
    std::printf("benchmark,what,count,bytes,reps,median_s,min_s,max_s\n");
    CHECK(cudaSetDevice(0));
    measure_kernels(reps, 1);
    measure_kernels(reps, prop.multiProcessorCount);
    if (!nccl_lib.empty()) {
      void* lib = dlopen(nccl_lib.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) throw std::runtime_error(std::string("cannot load ") + nccl_lib + ": " + dlerror());
      Nccl nccl{};
      bind(lib, "ncclGetVersion", nccl.get_version);
      bind(lib, "ncclCommInitAll", nccl.comm_init_all);
      bind(lib, "ncclCommDestroy", nccl.comm_destroy);
      bind(lib, "ncclAllReduce", nccl.all_reduce);
      bind(lib, "ncclGroupStart", nccl.group_start);
      bind(lib, "ncclGroupEnd", nccl.group_end);
      nccl.send = reinterpret_cast<decltype(nccl.send)>(dlsym(lib, "ncclSend"));
      nccl.recv = reinterpret_cast<decltype(nccl.recv)>(dlsym(lib, "ncclRecv"));
      measure_nccl(nccl, reps);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
