// library_choice.h: an MPI library's choice of a collective's algorithm, made as the library makes it, from the
// thresholds of an `mpi_library` type (stdlib/mpi.gpm), or Open MPI's (an `openmpi_library` type, openmpi_choice.cpp).
// MPICH's collective selection
// (maint/tuning/coll/mpir/generic.json for the algorithm, maint/tuning/coll/ch4/generic.json for the node-aware
// compositions of its ch4 device), with an operation taken as MPICH's defaults see it: an intra-communicator, a
// built-in commutative reduction (MPI_SUM), separate send and receive buffers.
#pragma once
#include <string>
#include <vector>

#include "engines/mpi/openmpi_rules.h"
#include "engines/mpi/pattern.h"

namespace gpm::mpi {

// The attributes of an `mpi_library` type, in the order mpich_choice reads them (frontend/schema.cpp checks that a
// type gives each; stdlib/mpi.gpm gives MPICH's with their sources).
const std::vector<std::string>& mpi_library_attributes();

struct LibraryChoice {
  Algorithm algorithm = Algorithm::BinomialTree;  // over every rank, or among the nodes' first ranks (node_aware)
  NodeAware node_aware;
  Variant variant;  // the chains, radix or parts of the algorithm (Open MPI's)
  std::string unmodelled;  // non-empty: a user's rule asks for what gpmc does not model (an error)
  int64_t rule_at = -1;    // the byte offset of the user's rule that decided, or -1
  // A rules file in the classic format that Open MPI 5.0 and earlier read otherwise for this operation: what they
  // would run, and the offset of the rule they would take (-1: none, the fixed decision).
  std::string released;
  int64_t released_rule_at = -1;
  double segment = 0;      // > 0: a pipeline's segment size the user's rule gives (its seg_size, in bytes)
  bool segment_floor = false;  // its whole elements rounded down (the split binary tree), not COMPUTED_SEGCOUNT's way
  std::string why;        // the rule that chose it, for the report
  bool counted = false;   // an element count decided it, and another element size (1 to 16 B) would decide otherwise
};

// MPICH's choice for `c` over the ranks of `layout` with `bytes` (the operation's `bytes`, as gpm operations give
// them) and elements of `element` bytes. `values` holds the library's attributes in mpi_library_attributes() order.
LibraryChoice mpich_choice(const std::vector<double>& values, Collective c, const Layout& layout, double bytes,
                           double element);

// The attributes of an `openmpi_library` type, in the order openmpi_choice reads them.
const std::vector<std::string>& openmpi_library_attributes();
// Open MPI's choice (its `tuned` component's fixed decisions, openmpi_choice.cpp) for `c` over the ranks of `layout`
// with `bytes` (the operation's `bytes`); `values` holds the type's attributes in openmpi_library_attributes() order.
// With `rules` (a user's dynamic rules file, `--mpi-rules`), a rule that names an algorithm decides instead.
LibraryChoice openmpi_choice(const std::vector<double>& values, Collective c, const Layout& layout, double bytes,
                             const OpenmpiRules* rules = nullptr);
// Open MPI's alltoallv over `ranks` (by rank count alone, or the rules file's): Linear or Pairwise, and the rule.
// `released` (and the offset of its rule): what Open MPI 5.0 and earlier would run instead from a classic rules file.
Algorithm openmpi_alltoallv_choice(int64_t ranks, const OpenmpiRules* rules, const Layout& layout, std::string& why,
                                   std::string& released, int64_t& released_at);

}  // namespace gpm::mpi
