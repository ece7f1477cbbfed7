/* ranks_mpi.c: the MPI plugin gpmc_mpi.so: ranks_plugin.h's functions over MPI's C API (built where MPI is found). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "driver/ranks_plugin.h"

/* Messages in pieces of at most 2^26 doubles (512 MiB), well within MPI's int counts. */
static const uint64_t kPiece = (uint64_t)1 << 26;

/* Waits for `request` without holding a core: a rank waits while rank 0 writes a batch's rows, and MPI's own wait
   polls, taking the core from rank 0 where there are no spare ones. A short spin first (a quick answer costs no
   sleep), then naps of 100 us: little latency beside a batch of 65,536 points. */
static int wait_for(MPI_Request* request) {
  for (int spins = 0;; ++spins) {
    int done = 0;
    int status = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (status != MPI_SUCCESS || done) return status;
    if (spins >= 1000) {
      struct timespec nap = {0, 100000};
      nanosleep(&nap, NULL);
    }
  }
}

static int init(int* rank, int* size) {
  int status = MPI_Init(NULL, NULL);
  if (status != MPI_SUCCESS) return status;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  status = MPI_Comm_rank(MPI_COMM_WORLD, rank);
  if (status != MPI_SUCCESS) return status;
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

// Sends (send != 0) or receives `count` doubles from `peer` in pieces of kPiece, each one waited for.
static int move_doubles(double* data, uint64_t count, int peer, int send) {
  for (uint64_t done = 0; done < count; done += kPiece) {
    uint64_t n = count - done < kPiece ? count - done : kPiece;
    MPI_Request request;
    int status = send ? MPI_Isend(data + done, (int)n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &request)
                      : MPI_Irecv(data + done, (int)n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &request);
    if (status == MPI_SUCCESS) status = wait_for(&request);
    if (status != MPI_SUCCESS) return status;
  }
  return MPI_SUCCESS;
}

static int send_doubles(const double* data, uint64_t count, int peer) {
  return move_doubles((double*)data, count, peer, 1);  // only read: MPI_Isend takes a const buffer
}

static int recv_doubles(double* data, uint64_t count, int peer) { return move_doubles(data, count, peer, 0); }

static int min_u64(uint64_t* value) {
  uint64_t in = *value;
  MPI_Request request;
  int status = MPI_Iallreduce(&in, value, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD, &request);
  return status == MPI_SUCCESS ? wait_for(&request) : status;
}

static int finalize(void) { return MPI_Finalize(); }

static void abort_all(int status) { MPI_Abort(MPI_COMM_WORLD, status); }

static const struct gpm_ranks_plugin kPlugin = {GPM_RANKS_PLUGIN_VERSION, init, send_doubles, recv_doubles,
                                                min_u64, finalize, abort_all};

__attribute__((visibility("default"))) const struct gpm_ranks_plugin* gpm_ranks_plugin(void) { return &kPlugin; }
