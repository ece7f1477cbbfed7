// calibrate.cu: tools/calibrate's measurements on CUDA GPUs; writes the raw CSV and the fitted machine file.
// The fits and the writers are plain C++ (fit.cpp, machine_writer.cpp, raw_csv.cpp); only this file needs nvcc.
#include "tools/calibrate/fit.h"
#include "tools/calibrate/machine_writer.h"
#include "tools/calibrate/raw_csv.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace gpm::calibrate;

namespace {

void check(cudaError_t status, const char* call, int line) {
  if (status != cudaSuccess)
    throw CalibrationError(std::string("calibrate.cu:") + std::to_string(line) + ": " + call + ": " +
                           cudaGetErrorString(status));
}
#define CHECK(call) check((call), #call, __LINE__)

struct Options {
  std::string csv_path = "calibration.csv";
  std::string gpm_path = "calibration.gpm";
  std::string name;
  size_t max_bytes = size_t(256) << 20;   // largest host copy
  int reps = 20;                          // timed repetitions per point (after 3 warm-up runs)
};

struct Timing {
  double median = 0, min = 0, max = 0;
};

Timing summarise(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return {median, samples.front(), samples.back()};
}

// Times `launch` (which enqueues work on the given streams) with CUDA events: a start event on the first stream
// that every other stream waits for, and one end event per stream; a sample is the latest end. Three warm-up runs.
Timing time_streams(const std::vector<cudaStream_t>& streams, int reps, const std::function<void()>& launch) {
  cudaEvent_t start;
  CHECK(cudaEventCreate(&start));
  std::vector<cudaEvent_t> ends(streams.size());
  for (auto& e : ends) CHECK(cudaEventCreate(&e));
  std::vector<double> samples;
  for (int r = -3; r < reps; ++r) {
    CHECK(cudaEventRecord(start, streams[0]));
    for (size_t s = 1; s < streams.size(); ++s) CHECK(cudaStreamWaitEvent(streams[s], start, 0));
    launch();
    for (size_t s = 0; s < streams.size(); ++s) CHECK(cudaEventRecord(ends[s], streams[s]));
    double latest = 0;
    for (auto& e : ends) {
      CHECK(cudaEventSynchronize(e));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, e));
      latest = std::max(latest, ms * 1e-3);
    }
    if (r >= 0) samples.push_back(latest);
  }
  CHECK(cudaEventDestroy(start));
  for (auto& e : ends) CHECK(cudaEventDestroy(e));
  return summarise(samples);
}

void add_row(RawMeasurements& raw, const char* benchmark, const char* direction, const char* memory, int src, int dst,
             long long streams, double amount, int reps, Timing t) {
  Measurement m;
  m.benchmark = benchmark;
  m.direction = direction;
  m.memory = memory;
  m.src = src;
  m.dst = dst;
  m.streams = streams;
  m.amount = amount;
  m.reps = reps;
  m.median_s = t.median;
  m.min_s = t.min;
  m.max_s = t.max;
  raw.rows.push_back(m);
}

// 1 B, then powers of two from 1 KiB to max_bytes.
std::vector<size_t> copy_sizes(size_t max_bytes) {
  std::vector<size_t> sizes{1};
  for (size_t s = 1024; s <= max_bytes; s *= 2) sizes.push_back(s);
  return sizes;
}

template <typename T>
__global__ void fma_kernel(T* out, int iterations, T seed) {
  T a0 = seed + threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const T m = static_cast<T>(0.999999), c = static_cast<T>(1e-7);
  for (int i = 0; i < iterations; ++i) {
    a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
    a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
  }
  T sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (sum == static_cast<T>(-1)) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;   // never true; keeps the work
}

__global__ void triad_kernel(double* a, const double* b, const double* c, double s, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    a[i] = b[i] + s * c[i];
}

// Host copies on one device: pinned and pageable over sizes, split copies for the gap, d2d copies.
void measure_host_copies(RawMeasurements& raw, int dev, const Options& opt) {
  CHECK(cudaSetDevice(dev));
  size_t max_bytes = opt.max_bytes;
  char *pinned = nullptr, *device = nullptr, *device2 = nullptr;
  CHECK(cudaMallocHost(&pinned, max_bytes));
  std::vector<char> pageable(max_bytes, 1);
  std::memset(pinned, 1, max_bytes);
  CHECK(cudaMalloc(&device, max_bytes));
  CHECK(cudaMalloc(&device2, max_bytes));
  std::vector<cudaStream_t> streams(64);
  for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<cudaStream_t> one{streams[0]};
  for (size_t n : copy_sizes(max_bytes)) {
    Timing t = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(device, pinned, n, cudaMemcpyHostToDevice, one[0])); });
    add_row(raw, "copy", "h2d", "pinned", -1, dev, 1, n, opt.reps, t);
    t = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(pinned, device, n, cudaMemcpyDeviceToHost, one[0])); });
    add_row(raw, "copy", "d2h", "pinned", dev, -1, 1, n, opt.reps, t);
    t = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(device, pageable.data(), n, cudaMemcpyHostToDevice, one[0])); });
    add_row(raw, "copy", "h2d", "pageable", -1, dev, 1, n, opt.reps, t);
    t = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(pageable.data(), device, n, cudaMemcpyDeviceToHost, one[0])); });
    add_row(raw, "copy", "d2h", "pageable", dev, -1, 1, n, opt.reps, t);
    t = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(device2, device, n, cudaMemcpyDeviceToDevice, one[0])); });
    add_row(raw, "copy", "d2d", "device", dev, dev, 1, n, opt.reps, t);
  }
  // Van Werkhoven section V: k bytes split into n equal parts, one per stream, issued one after another.
  size_t k = std::min(max_bytes, size_t(16) << 20);
  for (size_t n = 2; n <= streams.size(); n *= 2) {
    std::vector<cudaStream_t> used(streams.begin(), streams.begin() + n);
    size_t part = k / n;
    Timing t = time_streams(used, opt.reps, [&] {
      for (size_t s = 0; s < n; ++s)
        CHECK(cudaMemcpyAsync(device + s * part, pinned + s * part, part, cudaMemcpyHostToDevice, used[s]));
    });
    add_row(raw, "copy", "h2d", "pinned", -1, dev, n, part * n, opt.reps, t);
    t = time_streams(used, opt.reps, [&] {
      for (size_t s = 0; s < n; ++s)
        CHECK(cudaMemcpyAsync(pinned + s * part, device + s * part, part, cudaMemcpyDeviceToHost, used[s]));
    });
    add_row(raw, "copy", "d2h", "pinned", dev, -1, n, part * n, opt.reps, t);
  }
  // Copy/kernel overlap: h2d and d2h alone and together on two streams, an FMA kernel alone and with an h2d copy.
  size_t half = max_bytes / 2;
  std::vector<cudaStream_t> two{streams[0], streams[1]};
  Timing h2d = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(device, pinned, half, cudaMemcpyHostToDevice, one[0])); });
  Timing d2h = time_streams(one, opt.reps, [&] { CHECK(cudaMemcpyAsync(pinned + half, device2, half, cudaMemcpyDeviceToHost, one[0])); });
  Timing both = time_streams(two, opt.reps, [&] {
    CHECK(cudaMemcpyAsync(device, pinned, half, cudaMemcpyHostToDevice, two[0]));
    CHECK(cudaMemcpyAsync(pinned + half, device2, half, cudaMemcpyDeviceToHost, two[1]));
  });
  add_row(raw, "overlap", "h2d", "pinned", dev, dev, 1, half, opt.reps, h2d);
  add_row(raw, "overlap", "d2h", "pinned", dev, dev, 1, half, opt.reps, d2h);
  add_row(raw, "overlap", "h2d_d2h", "pinned", dev, dev, 2, half, opt.reps, both);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, dev));
  // A kernel of about the copy's duration: iterations scaled from a short trial run.
  float* sink = reinterpret_cast<float*>(device2);
  int blocks = prop.multiProcessorCount * 4, iterations = 1000;
  Timing trial = time_streams(one, 3, [&] { fma_kernel<float><<<blocks, 256, 0, one[0]>>>(sink, iterations, 1.0f); CHECK(cudaGetLastError()); });
  iterations = int(std::clamp(iterations * h2d.median / trial.median, 1.0, double(1 << 30)));
  Timing kernel = time_streams(one, opt.reps, [&] { fma_kernel<float><<<blocks, 256, 0, one[0]>>>(sink, iterations, 1.0f); CHECK(cudaGetLastError()); });
  Timing copy_kernel = time_streams(two, opt.reps, [&] {
    CHECK(cudaMemcpyAsync(device, pinned, half, cudaMemcpyHostToDevice, two[0]));
    fma_kernel<float><<<blocks, 256, 0, two[1]>>>(sink, iterations, 1.0f);
    CHECK(cudaGetLastError());
  });
  add_row(raw, "overlap", "kernel", "device", dev, dev, 1, half, opt.reps, kernel);
  add_row(raw, "overlap", "h2d_kernel", "pinned", dev, dev, 2, half, opt.reps, copy_kernel);
  // Peak flop/s: 8 independent FMA chains per thread, 2 flops each, enough blocks to fill every SM.
  int fma_blocks = prop.multiProcessorCount * 32, fma_iterations = 4096;
  double fma_flops = 2.0 * 8 * fma_iterations * double(fma_blocks) * 256;
  Timing fp32 = time_streams(one, opt.reps, [&] { fma_kernel<float><<<fma_blocks, 256, 0, one[0]>>>(sink, fma_iterations, 1.0f); CHECK(cudaGetLastError()); });
  add_row(raw, "fma", "fp32", "device", dev, dev, 1, fma_flops, opt.reps, fp32);
  double* sink64 = reinterpret_cast<double*>(device2);
  Timing fp64 = time_streams(one, opt.reps, [&] { fma_kernel<double><<<fma_blocks, 256, 0, one[0]>>>(sink64, fma_iterations, 1.0); CHECK(cudaGetLastError()); });
  add_row(raw, "fma", "fp64", "device", dev, dev, 1, fma_flops, opt.reps, fp64);
  // DRAM bandwidth: a triad a = b + s c over three arrays of max_bytes / 2 bytes (a in one buffer, b and c in the other).
  size_t n = max_bytes / 2 / sizeof(double);
  double* a = reinterpret_cast<double*>(device);
  double* b = reinterpret_cast<double*>(device2);
  double* c = b + n;
  Timing triad = time_streams(one, opt.reps, [&] { triad_kernel<<<prop.multiProcessorCount * 8, 256, 0, one[0]>>>(a, b, c, 3.0, n); CHECK(cudaGetLastError()); });
  add_row(raw, "dram", "triad", "device", dev, dev, 1, 3.0 * n * sizeof(double), opt.reps, triad);
  for (auto& s : streams) CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(device));
  CHECK(cudaFree(device2));
  CHECK(cudaFreeHost(pinned));
}

// The P2P matrix: every ordered pair, peer access off, then on where cudaDeviceCanAccessPeer allows it.
void measure_peers(RawMeasurements& raw, int devices, const Options& opt) {
  size_t max_bytes = std::min(opt.max_bytes, size_t(64) << 20);
  std::vector<char*> buffers(devices);
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaMalloc(&buffers[d], max_bytes));
  }
  std::vector<size_t> sizes{1, size_t(4) << 10, size_t(64) << 10, size_t(1) << 20, size_t(16) << 20, max_bytes};
  for (int i = 0; i < devices; ++i)
    for (int j = 0; j < devices; ++j) {
      if (i == j) continue;
      int can = 0;
      CHECK(cudaDeviceCanAccessPeer(&can, i, j));
      CHECK(cudaSetDevice(i));
      cudaStream_t stream;
      CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      for (bool on : {false, true}) {
        if (on && !can) break;
        if (on) CHECK(cudaDeviceEnablePeerAccess(j, 0));
        for (size_t n : sizes) {
          Timing t = time_streams({stream}, opt.reps, [&] { CHECK(cudaMemcpyPeerAsync(buffers[j], j, buffers[i], i, n, stream)); });
          add_row(raw, "copy", "p2p", on ? "peer_on" : "peer_off", i, j, 1, n, opt.reps, t);
        }
        if (on) CHECK(cudaDeviceDisablePeerAccess(j));
      }
      CHECK(cudaStreamDestroy(stream));
    }
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaFree(buffers[d]));
  }
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

Options parse_options(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw CalibrationError("option " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--csv") opt.csv_path = value();
    else if (arg == "--gpm") opt.gpm_path = value();
    else if (arg == "--name") opt.name = value();
    else if (arg == "--max-mib") {
      long v = std::strtol(value().c_str(), nullptr, 10);
      if (v < 16 || v > 16384) throw CalibrationError("--max-mib must be 16..16384");
      opt.max_bytes = size_t(v) << 20;
    } else if (arg == "--reps") {
      long v = std::strtol(value().c_str(), nullptr, 10);
      if (v < 1 || v > 10000) throw CalibrationError("--reps must be 1..10000");
      opt.reps = int(v);
    } else if (arg == "--help" || arg == "-h") {
      std::printf("calibrate [--csv FILE] [--gpm FILE] [--name NAME] [--max-mib N] [--reps N]\n"
                  "Measures every CUDA device of this node and writes the raw CSV and a machine file "
                  "(docs/calibration.md).\n");
      std::exit(0);
    } else {
      throw CalibrationError("unknown option `" + arg + "` (see --help)");
    }
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opt = parse_options(argc, argv);
    int devices = 0;
    CHECK(cudaGetDeviceCount(&devices));
    if (devices < 1) throw CalibrationError("no CUDA device");
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    for (int d = 1; d < devices; ++d) {
      cudaDeviceProp other{};
      CHECK(cudaGetDeviceProperties(&other, d));
      if (std::strcmp(other.name, prop.name) != 0)
        throw CalibrationError(std::string("devices of different models (") + prop.name + ", " + other.name +
                               "): restrict them with CUDA_VISIBLE_DEVICES");
    }
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    char date[32];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    RawMeasurements raw;
    raw.file = opt.csv_path;
    raw.metadata = {{"gpu", prop.name},
                    {"driver", "CUDA " + version_text(driver) + " (cudaDriverGetVersion)"},
                    {"runtime", version_text(runtime)},
                    {"date", date},
                    {"devices", std::to_string(devices)},
                    {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
                    {"sms", std::to_string(prop.multiProcessorCount)},
                    {"mem_size_bytes", std::to_string(prop.totalGlobalMem)},
                    {"async_engine_count", std::to_string(prop.asyncEngineCount)},
                    {"source", "tools/calibrate, median of the timed repetitions (CUDA events), 3 warm-up runs"}};
    for (int d = 0; d < devices; ++d) {
      std::fprintf(stderr, "calibrate: device %d: host copies, streams, overlap, peaks\n", d);
      measure_host_copies(raw, d, opt);
    }
    if (devices > 1) {
      std::fprintf(stderr, "calibrate: peer-to-peer matrix\n");
      measure_peers(raw, devices, opt);
    }
    std::string csv = format_raw(raw);
    RawMeasurements reread = parse_raw(csv, opt.csv_path);
    std::string name = machine_identifier(opt.name.empty() ? prop.name : opt.name);
    std::string gpm = write_machine(reread, fit_calibration(reread), name, opt.csv_path);
    for (const auto& [path, text] : {std::pair{opt.csv_path, csv}, std::pair{opt.gpm_path, gpm}}) {
      std::ofstream out(path, std::ios::binary);
      if (!(out << text) || !out.flush()) throw CalibrationError(path + ": cannot write the file");
    }
    std::fprintf(stderr, "calibrate: wrote %s and %s\n", opt.csv_path.c_str(), opt.gpm_path.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
