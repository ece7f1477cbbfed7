// ranks.h: the processes of one run: this one alone, or the ranks an MPI launcher (mpirun) started, among which
// `gpmc sweep` and `gpmc search` split their points or orders (docs/mpi.md).
#pragma once
#include <cstdint>
#include <string>

#include "driver/ranks_plugin.h"

namespace gpm::driver {

// The contiguous share [begin, end) of items [first, last) of rank `rank` among `ranks`: the shares are in rank order,
// cover every item once, and differ in size by at most one.
struct Share {
  uint64_t begin = 0, end = 0;
  uint64_t size() const { return end - begin; }
};
Share share_of(uint64_t first, uint64_t last, int rank, int ranks);

// The number of ranks an MPI launcher says it started (Open MPI's OMPI_COMM_WORLD_SIZE, MPICH's PMI_SIZE), or 1.
int launched_ranks();

class Ranks {
 public:
  Ranks() = default;
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;
  ~Ranks();  // MPI_Finalize, when started
  // Without a launcher, or with one rank: this process alone, nothing loaded. Under a launcher of several ranks:
  // loads the MPI plugin (gpmc_mpi.so, beside gpmc or in ../lib/gpmc; $GPMC_MPI_PLUGIN wins) and joins the ranks;
  // every rank but 0 then writes nothing (its stdout and stderr go to /dev/null), so that the output and the
  // diagnostics appear once. False, with `error`, when this gpmc has no plugin or MPI fails to start.
  bool start(std::string& error);
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // Worker threads per rank by default: the hardware threads shared among the ranks on this node.
  unsigned default_threads() const;
  Share share(uint64_t first, uint64_t last) const { return share_of(first, last, rank_, size_); }
  // Items [first, last), `stride` doubles each: on rank 0, `data` holds all of them and receives every other rank's
  // share in place; on another rank, `data` holds its own share (from its first item) and sends it.
  void gather(double* data, uint64_t first, uint64_t last, size_t stride) const;
  // The least `value` over the ranks, on every rank; `all(ok)`: whether every rank says ok.
  uint64_t min(uint64_t value) const;
  bool all(bool ok) const { return min(ok ? 1 : 0) == 1; }

 private:
  void check(int status, const char* what) const;
  const gpm_ranks_plugin* plugin_ = nullptr;
  int rank_ = 0, size_ = 1;
};

}  // namespace gpm::driver
