// mpi_engine.h: the communication engine: a halo exchange or a collective, priced message by message with the
// node-aware postal, max-rate or K-model (E2E sections 2.1, 3.1, 3.2) on the machine's MPI fits.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engines/mpi/pattern.h"
#include "ir/engine.h"

namespace gpm::mpi {

// Inputs: the machine's values (p2p.h, namespace `in`, kMachineInputs of them), then the operation's sizes:
// face, edge and corner bytes for a halo; the operation's bytes and its pipeline segment (0: the segment count
// that gives the least time) for a collective.
class CommEngine : public ir::Engine {
 public:
  // A halo exchange: one pattern, three message sizes.
  static std::shared_ptr<CommEngine> halo(Choice choice, const Layout& layout, const Grid& grid, std::string& error);
  // A collective: its rounds, one size.
  static std::shared_ptr<CommEngine> collective(Choice choice, const Layout& layout, Collective c, Algorithm a,
                                                NodeAware node_aware = {}, Variant variant = {});
  // A point-to-point operation (`send`, `sendrecv`): its rounds (p2p_rounds), one size.
  static std::shared_ptr<CommEngine> point_to_point(Choice choice, const Layout& layout, std::string what,
                                                    std::vector<Round> rounds);
  // An alltoallv: its rounds (alltoallv_rounds without kept messages), the size input unused.
  static std::shared_ptr<CommEngine> alltoallv(Choice choice, const Layout& layout, Algorithm a,
                                               std::vector<Round> rounds);

  std::string name() const override { return "mpi"; }
  double time(std::span<const double> inputs) const override;
  ir::EngineResult run(std::span<const double> inputs) const override;
  std::string describe() const override;
  // How many size inputs follow the machine's values.
  int size_inputs() const { return halo_ ? kSizeKinds : 2; }
  // Who chose the algorithm when not the operation (an MPI library: "mpich"), for the report's detail.
  void set_chosen_by(std::string who) { chosen_by_ = std::move(who); }
  const std::vector<Round>& rounds() const { return rounds_; }

 private:
  CommEngine() = default;
  std::array<double, kSizeKinds> sizes_of(const Round& round, std::span<const double> inputs) const;
  std::vector<SizedRow> rows_of(const Round& round, std::span<const double> inputs) const;
  // A round priced: its pattern time, how often it repeats, its message sizes and, when pipelined, its segments.
  struct RoundCost {
    PatternTime pattern;
    double repeat = 1;
    std::array<double, kSizeKinds> sizes{};
    double segments = 0;
  };
  RoundCost cost_of(const Round& round, std::span<const double> inputs) const;

  Choice choice_;
  bool halo_ = false;
  std::string what_;  // "halo" or the collective's name
  std::string chosen_by_;
  std::string algorithm_;
  std::vector<Round> rounds_;
  int64_t ranks_ = 0, nodes_ = 0, ranks_per_node_ = 0, ranks_per_socket_ = 0, leaves_ = 1;
  Grid grid_;
};

}  // namespace gpm::mpi
