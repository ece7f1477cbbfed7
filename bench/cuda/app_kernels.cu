// app_kernels.cu: the kernels of the shipped Jacobi2D and MiniFE apps (apps/jacobi2d.gpm, apps/minife.gpm), written
// as plainly as their counts describe them and timed on one GPU over a range of sizes: the measurements behind the
// kernel rows of docs/validation.md, which compare them with the roofline the apps' flop and byte counts give.
// Prints CSV (kernel, points per side, seconds: median, minimum and maximum over --reps runs after 3 warm-ups), and
// for each size the time of one iteration's kernels launched back to back (`*_iteration` rows) and of two Jacobi2D
// kernels at once on two streams (`*_two_streams` rows).
// Build and run where nvcc and a GPU exist: nvcc -O3 -std=c++17 bench/cuda/app_kernels.cu -o app_kernels && ./app_kernels
// [--reps N] [--largest]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "timing.cuh"

namespace {

// ---- Jacobi2D (apps/jacobi2d.gpm): an n x n block of doubles with one ghost cell on each side (row length n + 2).

// eq. 6 of the end-to-end paper as the app counts it: 6 flop, one read of the old cell (its neighbours come from
// cache) and one write of the new one.
__global__ void stencil(const double* __restrict__ in, double* __restrict__ out, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i > n || j > n) return;
  const size_t ld = size_t(n) + 2, c = size_t(i) * ld + j;
  out[c] = 0.5 * (in[c] + 0.25 * (in[c - 1] + in[c + 1] + in[c - ld] + in[c + ld]));
}

// Cell k (1..n) of face `face` (0: first row, 1: last row, 2: first column, 3: last column): of the interior (the
// cells a neighbour needs) or of the ghost cells beside it (what a neighbour sends).
__device__ size_t face_cell(int face, int k, int n, bool ghost) {
  const size_t ld = size_t(n) + 2;
  const int lo = ghost ? 0 : 1, hi = ghost ? n + 1 : n;
  if (face == 0) return size_t(lo) * ld + k;
  if (face == 1) return size_t(hi) * ld + k;
  if (face == 2) return size_t(k) * ld + lo;
  return size_t(k) * ld + hi;
}

// The four faces into one buffer of 4 n doubles.
__global__ void pack(const double* __restrict__ grid, double* __restrict__ buf, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < 4 * n) buf[t] = grid[face_cell(t / n, t % n + 1, n, false)];
}

// The received faces into the ghost cells.
__global__ void unpack(const double* __restrict__ buf, double* __restrict__ grid, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < 4 * n) grid[face_cell(t / n, t % n + 1, n, true)] = buf[t];
}

// A block's sum: grid-stride loop, a reduction in shared memory, one atomic add per block (1 flop, 8 B per item).
// The sum is never reset between runs: only the time matters here.
__global__ void block_sum(const double* __restrict__ x, const double* __restrict__ y, size_t count, double* sum) {
  __shared__ double part[256];
  double acc = 0;
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < count; k += size_t(gridDim.x) * blockDim.x)
    acc += y ? x[k] * y[k] : x[k];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, part[0]);
}

// Jacobi2D's reduction sums the interior of the block: one thread per row, summing along it, would read rows
// strided; one pass over the whole padded array (2 ghost cells per row more, 0.01 % at n = 16384) reads it
// contiguously, as a reduction over a block would be written.

// ---- MiniFE (apps/minife.gpm): an n x n x n grid, one row per point.

__global__ void waxpby(size_t count, double a, const double* __restrict__ x, double b, const double* __restrict__ y,
                       double* __restrict__ w) {
  for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < count; k += size_t(gridDim.x) * blockDim.x)
    w[k] = a * x[k] + b * y[k];
}

// The 27-point hexahedral stencil matrix in CSR: row r's columns are its neighbours inside the grid (27 inside,
// fewer on the boundary, as MiniFE's matrix has), in increasing order; 26 on the diagonal, -1 elsewhere.
__global__ void fill_matrix(int n, const int* __restrict__ row_ptr, int* __restrict__ cols, double* __restrict__ vals) {
  const size_t rows = size_t(n) * n * n;
  for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r < rows; r += size_t(gridDim.x) * blockDim.x) {
    const int x = int(r % n), y = int(r / n % n), z = int(r / (size_t(n) * n));
    int at = row_ptr[r];
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int X = x + dx, Y = y + dy, Z = z + dz;
          if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n) continue;
          cols[at] = int((size_t(Z) * n + Y) * n + X);
          vals[at] = (dx == 0 && dy == 0 && dz == 0) ? 26.0 : -1.0;
          ++at;
        }
  }
}

// y = A x, one thread per row (the scalar CSR kernel).
__global__ void matvec_thread(size_t rows, const int* __restrict__ row_ptr, const int* __restrict__ cols,
                              const double* __restrict__ vals, const double* __restrict__ x, double* __restrict__ y) {
  for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r < rows; r += size_t(gridDim.x) * blockDim.x) {
    double acc = 0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[cols[k]];
    y[r] = acc;
  }
}

// y = A x, one warp per row (the vector CSR kernel: a row's entries read by consecutive lanes, then summed).
__global__ void matvec_warp(size_t rows, const int* __restrict__ row_ptr, const int* __restrict__ cols,
                            const double* __restrict__ vals, const double* __restrict__ x, double* __restrict__ y) {
  const int lane = threadIdx.x % 32;
  const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
  for (size_t r = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32; r < rows; r += warps) {
    double acc = 0;
    for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32) acc += vals[k] * x[cols[k]];
    for (int s = 16; s > 0; s /= 2) acc += __shfl_down_sync(0xffffffffu, acc, s);
    if (lane == 0) y[r] = acc;
  }
}

constexpr int kIters = 20;  // iterations per timed run of a whole iteration's kernels

void row(const char* kernel, int n, size_t items, int reps, const Timing& t) {
  std::printf("%s,%d,%zu,%d,%.6e,%.6e,%.6e\n", kernel, n, items, reps, t.median, t.min, t.max);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  bool largest = false;   // --largest: only the largest size of each app (for a profiler's run)
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--largest")) largest = true;
  }
  if (reps < 1) reps = 1;
  const std::vector<int> jacobi_sizes =
      largest ? std::vector<int>{16384} : std::vector<int>{512, 1024, 2048, 4096, 8192, 16384};
  const std::vector<int> minife_sizes =
      largest ? std::vector<int>{200} : std::vector<int>{16, 32, 64, 100, 128, 200, 256};
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  cudaStream_t s, s2;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  const int blocks = prop.multiProcessorCount * 16;   // enough resident warps for the grid-stride kernels
  std::printf("# gpu: %s\n# driver: %d\n# runtime: %d\n# sms: %d\n", prop.name, driver, runtime,
              prop.multiProcessorCount);
  std::printf("# source: bench/cuda/app_kernels.cu, CUDA events, median of %d timed runs after 3 warm-up runs\n", reps);
  std::printf("# n: points per side (Jacobi2D: an n x n block; MiniFE: an n x n x n box); items: cells or rows\n");
  std::printf("kernel,n,items,reps,median_s,min_s,max_s\n");

  double* sum = nullptr;
  CHECK(cudaMalloc(&sum, sizeof(double)));
  CHECK(cudaMemset(sum, 0, sizeof(double)));

  for (int n : jacobi_sizes) {
    const size_t cells = (size_t(n) + 2) * (size_t(n) + 2);
    double *a = nullptr, *b = nullptr, *buf = nullptr;
    CHECK(cudaMalloc(&a, cells * sizeof(double)));
    CHECK(cudaMalloc(&b, cells * sizeof(double)));
    CHECK(cudaMalloc(&buf, 4 * size_t(n) * sizeof(double)));
    CHECK(cudaMemset(a, 0, cells * sizeof(double)));
    CHECK(cudaMemset(b, 0, cells * sizeof(double)));
    CHECK(cudaMemset(buf, 0, 4 * size_t(n) * sizeof(double)));
    const dim3 tb(32, 8), grid((n + 31) / 32, (n + 7) / 8);
    const int face_blocks = (4 * n + 255) / 256;
    row("jacobi2d_stencil", n, size_t(n) * n, reps, time_it({s}, reps, [&] { stencil<<<grid, tb, 0, s>>>(a, b, n); }));
    row("jacobi2d_reduce", n, size_t(n) * n, reps,
        time_it({s}, reps, [&] { block_sum<<<blocks, 256, 0, s>>>(a, nullptr, cells, sum); }));
    row("jacobi2d_pack", n, 4 * size_t(n), reps,
        time_it({s}, reps, [&] { pack<<<face_blocks, 256, 0, s>>>(a, buf, n); }));
    row("jacobi2d_unpack", n, 4 * size_t(n), reps,
        time_it({s}, reps, [&] { unpack<<<face_blocks, 256, 0, s>>>(buf, a, n); }));
    // An iteration's kernels one after another, as apps/jacobi2d.gpm runs them (its copies and MPI left out), launched
    // back to back from this thread: the time of kIters iterations divided by kIters.
    Timing it = time_it({s}, reps, [&] {
      for (int k = 0; k < kIters; ++k) {
        pack<<<face_blocks, 256, 0, s>>>(a, buf, n);
        unpack<<<face_blocks, 256, 0, s>>>(buf, a, n);
        stencil<<<grid, tb, 0, s>>>(a, b, n);
        block_sum<<<blocks, 256, 0, s>>>(b, nullptr, cells, sum);
      }
    });
    row("jacobi2d_iteration", n, size_t(n) * n, reps, {it.median / kIters, it.min / kIters, it.max / kIters});
    // Two kernels at once on two streams of the GPU: two stencils (each its own output), and a pack beside an unpack
    // (each its own buffer): the time until both have ended.
    double* c = nullptr;
    double* buf2 = nullptr;
    CHECK(cudaMalloc(&c, cells * sizeof(double)));
    CHECK(cudaMalloc(&buf2, 4 * size_t(n) * sizeof(double)));
    CHECK(cudaMemset(buf2, 0, 4 * size_t(n) * sizeof(double)));
    row("jacobi2d_stencil_two_streams", n, 2 * size_t(n) * n, reps, time_it({s, s2}, reps, [&] {
          stencil<<<grid, tb, 0, s>>>(a, b, n);
          stencil<<<grid, tb, 0, s2>>>(a, c, n);
        }));
    row("jacobi2d_pack_unpack_two_streams", n, 8 * size_t(n), reps, time_it({s, s2}, reps, [&] {
          pack<<<face_blocks, 256, 0, s>>>(b, buf, n);
          unpack<<<face_blocks, 256, 0, s2>>>(buf2, a, n);
        }));
    CHECK(cudaGetLastError());
    CHECK(cudaFree(c));
    CHECK(cudaFree(buf2));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(buf));
  }

  for (int n : minife_sizes) {
    const size_t rows = size_t(n) * n * n;
    std::vector<int> row_ptr(rows + 1, 0);
    auto span = [n](int c) { return (c > 0 ? 1 : 0) + 1 + (c < n - 1 ? 1 : 0); };
    for (size_t r = 0; r < rows; ++r) {
      const int x = int(r % n), y = int(r / n % n), z = int(r / (size_t(n) * n));
      row_ptr[r + 1] = row_ptr[r] + span(x) * span(y) * span(z);
    }
    const size_t nnz = size_t(row_ptr[rows]);
    int *d_ptr = nullptr, *cols = nullptr;
    double *vals = nullptr, *x = nullptr, *y = nullptr, *w = nullptr;
    CHECK(cudaMalloc(&d_ptr, (rows + 1) * sizeof(int)));
    CHECK(cudaMalloc(&cols, nnz * sizeof(int)));
    CHECK(cudaMalloc(&vals, nnz * sizeof(double)));
    CHECK(cudaMalloc(&x, rows * sizeof(double)));
    CHECK(cudaMalloc(&y, rows * sizeof(double)));
    CHECK(cudaMalloc(&w, rows * sizeof(double)));
    CHECK(cudaMemcpy(d_ptr, row_ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    fill_matrix<<<blocks, 256, 0, s>>>(n, d_ptr, cols, vals);
    CHECK(cudaMemsetAsync(x, 0, rows * sizeof(double), s));
    CHECK(cudaMemsetAsync(y, 0, rows * sizeof(double), s));
    CHECK(cudaStreamSynchronize(s));
    row("minife_dot", n, rows, reps, time_it({s}, reps, [&] { block_sum<<<blocks, 256, 0, s>>>(x, y, rows, sum); }));
    row("minife_waxpby", n, rows, reps,
        time_it({s}, reps, [&] { waxpby<<<blocks, 256, 0, s>>>(rows, 1.0, x, -0.5, y, w); }));
    row("minife_matvec_thread", n, rows, reps,
        time_it({s}, reps, [&] { matvec_thread<<<blocks, 256, 0, s>>>(rows, d_ptr, cols, vals, x, y); }));
    row("minife_matvec_warp", n, rows, reps,
        time_it({s}, reps, [&] { matvec_warp<<<blocks, 256, 0, s>>>(rows, d_ptr, cols, vals, x, y); }));
    // A CG iteration's kernels one after another, as apps/minife.gpm runs them (dot, waxpby, matvec, dot, waxpby,
    // waxpby; its MPI left out), the matvec with a warp per row: the time of kIters iterations divided by kIters.
    Timing it = time_it({s}, reps, [&] {
      for (int k = 0; k < kIters; ++k) {
        block_sum<<<blocks, 256, 0, s>>>(x, y, rows, sum);
        waxpby<<<blocks, 256, 0, s>>>(rows, 1.0, x, -0.5, y, w);
        matvec_warp<<<blocks, 256, 0, s>>>(rows, d_ptr, cols, vals, w, y);
        block_sum<<<blocks, 256, 0, s>>>(w, y, rows, sum);
        waxpby<<<blocks, 256, 0, s>>>(rows, 1.0, x, -0.5, y, w);
        waxpby<<<blocks, 256, 0, s>>>(rows, 1.0, w, -0.5, y, x);
      }
    });
    row("minife_iteration", n, rows, reps, {it.median / kIters, it.min / kIters, it.max / kIters});
    CHECK(cudaGetLastError());
    for (void* p : {static_cast<void*>(d_ptr), static_cast<void*>(cols), static_cast<void*>(vals),
                    static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(w)})
      CHECK(cudaFree(p));
  }
  CHECK(cudaFree(sum));
  return 0;
}
