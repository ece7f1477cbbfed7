// library_choice.cpp: MPICH's choice of a collective's algorithm (library_choice.h). The rules are MPICH's selection
// trees as its repository publishes them (github.com/pmodels/mpich, main of 2026): maint/tuning/coll/mpir/generic.json
// (which algorithm, by message size, rank count and element count) and maint/tuning/coll/ch4/generic.json (when the
// ch4 device composes the operation node by node); the numbers are the `mpi_library` type's (stdlib/mpi.gpm).
#include "engines/mpi/library_choice.h"

#include <fmt/format.h>

#include <cmath>

namespace gpm::mpi {

namespace {

enum Attr {
  kAllreduceShort,
  kReduceShort,
  kBcastShort,
  kBcastLong,
  kBcastMinRanks,
  kAllgatherShort,
  kAllgatherLong,
  kReduceScatterLong,
  kAlltoallShort,
  kAlltoallMedium,
  kAlltoallMinRanks,
  kBcastIntranodeK,
  kReduceIntranodeK,
  kReduceIntranodeKLarge,
  kReduceIntranodeLarge,
  kAttrs
};

bool power_of_two(int64_t p) { return p > 0 && (p & (p - 1)) == 0; }

int64_t pof2(int64_t p) {  // the largest power of two <= p (MPL_pof2)
  int64_t q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

std::string size_text(double bytes) { return fmt::format("{:g} B", bytes); }

// MPIR's selection over `p` ranks (mpir/generic.json, intra-communicator, commutative built-in operation).
LibraryChoice flat(const std::vector<double>& v, Collective c, int64_t p, double bytes, double count) {
  LibraryChoice out;
  // Where the element count decides, whether another element size (1 to 16 bytes) would decide otherwise.
  const bool ambiguous = std::floor(bytes / 16) < double(pof2(p)) && bytes >= double(pof2(p));
  auto pick = [&](Algorithm a, std::string why, bool counted = false) {
    out.algorithm = a;
    out.why = std::move(why);
    out.counted = counted;
  };
  switch (c) {
    case Collective::Allreduce:
    case Collective::Reduce: {
      // `small` up to the short size or with fewer elements than the largest power of two of the ranks (a buffer
      // Rabenseifner's halving cannot split), else Rabenseifner's.
      const bool all = c == Collective::Allreduce;
      const double short_bytes = v[all ? kAllreduceShort : kReduceShort];
      const Algorithm small = all ? Algorithm::RecursiveDoubling : Algorithm::BinomialTree;
      if (bytes <= short_bytes)
        pick(small, fmt::format("at most {}", size_text(short_bytes)));
      else if (count < double(pof2(p)))
        pick(small, fmt::format("fewer elements than {}, the largest power of two of the ranks", pof2(p)), ambiguous);
      else
        pick(Algorithm::Rabenseifner, fmt::format("over {}", size_text(short_bytes)), ambiguous);
      break;
    }
    case Collective::Bcast:
      if (double(p) < v[kBcastMinRanks])
        pick(Algorithm::BinomialTree, fmt::format("fewer than {:g} ranks", v[kBcastMinRanks]));
      else if (bytes <= v[kBcastShort])
        pick(Algorithm::BinomialTree, fmt::format("at most {}", size_text(v[kBcastShort])));
      else if (power_of_two(p) && bytes <= v[kBcastLong])
        pick(Algorithm::ScatterDoublingAllgather,
             fmt::format("a power of two of ranks, at most {}", size_text(v[kBcastLong])));
      else
        pick(Algorithm::ScatterAllgather,
             power_of_two(p) ? fmt::format("over {}", size_text(v[kBcastLong]))
                             : fmt::format("over {}, ranks not a power of two", size_text(v[kBcastShort])));
      break;
    case Collective::Allgather: {
      const double total = bytes * double(p);  // MPICH's total_msg_size: the gathered output
      if (power_of_two(p))
        pick(total < v[kAllgatherLong] ? Algorithm::RecursiveDoubling : Algorithm::Ring,
             fmt::format("a power of two of ranks, output {} {}", total < v[kAllgatherLong] ? "under" : "of at least",
                         size_text(v[kAllgatherLong])));
      else
        pick(total < v[kAllgatherShort] ? Algorithm::Bruck : Algorithm::Ring,
             fmt::format("output {} {}", total < v[kAllgatherShort] ? "under" : "of at least",
                         size_text(v[kAllgatherShort])));
      break;
    }
    case Collective::ReduceScatter:
      pick(bytes < v[kReduceScatterLong] ? Algorithm::RecursiveHalving : Algorithm::Pairwise,
           fmt::format("{} {}", bytes < v[kReduceScatterLong] ? "under" : "at least",
                       size_text(v[kReduceScatterLong])));
      break;
    case Collective::Alltoall:
      if (double(p) >= v[kAlltoallMinRanks] && bytes <= v[kAlltoallShort])
        pick(Algorithm::Bruck, fmt::format("at most {} to each rank", size_text(v[kAlltoallShort])));
      else if (bytes <= v[kAlltoallMedium])
        pick(Algorithm::Scattered, fmt::format("at most {} to each rank", size_text(v[kAlltoallMedium])));
      else
        pick(Algorithm::Pairwise, fmt::format("over {} to each rank", size_text(v[kAlltoallMedium])));
      break;
    case Collective::Gather:
    case Collective::Scatter:
      pick(Algorithm::BinomialTree, "its only algorithm");
      break;
    default:
      pick(Algorithm::Dissemination, "a barrier");
      break;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& mpi_library_attributes() {
  static const std::vector<std::string> names = {
      "allreduce_short", "reduce_short",       "bcast_short",        "bcast_long",
      "bcast_min_ranks", "allgather_short",    "allgather_long",     "reduce_scatter_long",
      "alltoall_short",  "alltoall_medium",    "alltoall_min_ranks", "bcast_intranode_k",
      "reduce_intranode_k", "reduce_intranode_k_large", "reduce_intranode_large"};
  return names;
}

LibraryChoice mpich_choice(const std::vector<double>& v, Collective c, const Layout& l, double bytes, double element) {
  const double count = element > 0 ? std::floor(bytes / element) : bytes;
  // ch4/generic.json: a communicator over several nodes with several ranks on a node (MPICH's "parent" hierarchy)
  // composes allreduce, reduce and barrier node by node, and a bcast below its long-message size or over few ranks.
  const bool parent = l.nodes > 1 && l.ranks > l.nodes;
  bool compose = parent && has_node_aware(c);
  if (compose && c == Collective::Bcast)
    compose = double(l.ranks) < v[kBcastMinRanks] || bytes < v[kBcastShort] ||
              (power_of_two(l.ranks) && bytes < v[kBcastLong]);
  if (!compose) return flat(v, c, l.ranks, bytes, count);
  LibraryChoice out = flat(v, c, l.nodes, bytes, count);  // MPIR's choice among the nodes' first ranks
  out.node_aware.on = true;
  out.node_aware.bcast_k = int64_t(v[kBcastIntranodeK]);
  out.node_aware.reduce_k = int64_t(bytes <= v[kReduceIntranodeLarge] ? v[kReduceIntranodeK] : v[kReduceIntranodeKLarge]);
  out.why = fmt::format("node by node over {} nodes; among them {}", l.nodes, out.why);
  return out;
}

}  // namespace gpm::mpi
