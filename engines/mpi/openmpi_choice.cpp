// openmpi_choice.cpp: Open MPI's choice of a collective's algorithm (library_choice.h): the `tuned` component's fixed
// decisions, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (github.com/open-mpi/ompi, main of 2026), read for an
// intra-communicator and a commutative operation. Their switch points (bands of communicator sizes, each a list of
// message sizes) are written below as tables of the same numbers, which "were generated based off of results that
// were gathered using the ompi-collectives-tuning package" and averaged over several clusters (the file's own
// words); the algorithm numbers are those of each collective's coll_tuned_<collective>_algorithm parameter.
// The parameters the decisions pass with them (the reduce's fan-out 2, segment sizes of 0: one segment) and the
// component's defaults (the k-nomial broadcast's radix 4) come from the `openmpi_library` type (stdlib/mpi.gpm).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engines/mpi/library_choice.h"

namespace gpm::mpi {

namespace {

constexpr int64_t kAny = std::numeric_limits<int64_t>::max();

// One rule: the algorithm for messages below `below` bytes (the first rule that holds).
struct Rule {
  int64_t below;
  int alg;
};
// A band: the rules for communicators below `below` ranks (the first band that holds).
struct Band {
  int64_t below;
  std::vector<Rule> rules;
};

// The decisions, band by band, as coll_tuned_decision_fixed.c writes them: "communicator_size == 2" is the band
// below 3 ranks; the reductions' tables are their commutative branches.
const Band kAllreduce[] = {
    {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {kAny, 6}}},
    {8, {{16, 4}, {8192, 3}, {kAny, 6}}},
    {16, {{8192, 3}, {kAny, 6}}},
    {32, {{64, 5}, {4096, 3}, {kAny, 6}}},
    {64, {{128, 5}, {kAny, 6}}},
    {128, {{262144, 3}, {kAny, 6}}},
    {256, {{131072, 2}, {262144, 3}, {kAny, 6}}},
    {512, {{4096, 2}, {kAny, 6}}},
    {2048, {{2048, 2}, {16384, 3}, {kAny, 6}}},
    {4096, {{2048, 2}, {4096, 5}, {16384, 3}, {kAny, 6}}},
    {kAny, {{2048, 2}, {16384, 5}, {32768, 3}, {kAny, 6}}},
};
const Band kAlltoall[] = {
    {3, {{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}, {kAny, 2}}},
    {8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {kAny, 1}}},
    {16, {{262144, 4}, {kAny, 1}}},
    {32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {kAny, 4}}},
    {64, {{512, 3}, {524288, 1}, {kAny, 4}}},
    {128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {kAny, 2}}},
    {256, {{1024, 3}, {2048, 4}, {262144, 1}, {kAny, 2}}},
    {512, {{1024, 3}, {8192, 4}, {32768, 1}, {kAny, 2}}},
    {1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {kAny, 2}}},
    {2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {kAny, 4}}},
    {4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {kAny, 1}}},
    {kAny, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {kAny, 4}}},
};
const Band kAlltoallv[] = {
    {4, {{kAny, 2}}},
    {64, {{kAny, 1}}},
    {128, {{kAny, 2}}},
    {256, {{kAny, 1}}},
    {1024, {{kAny, 2}}},
    {kAny, {{kAny, 1}}},
};
const Band kBarrier[] = {
    {4, {{kAny, 3}}},
    {8, {{kAny, 1}}},
    {64, {{kAny, 3}}},
    {256, {{kAny, 4}}},
    {512, {{kAny, 6}}},
    {1024, {{kAny, 4}}},
    {4096, {{kAny, 6}}},
    {kAny, {{kAny, 4}}},
};
const Band kBcast[] = {
    {4, {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1}, {1048576, 6}, {kAny, 5}}},
    {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {kAny, 2}}},
    {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {kAny, 1}}},
    {32, {{4096, 7}, {1048576, 6}, {kAny, 8}}},
    {64, {{2048, 6}, {kAny, 7}}},
    {128, {{kAny, 7}}},
    {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {kAny, 7}}},
    {1024, {{16384, 7}, {32768, 4}, {kAny, 7}}},
    {2048, {{524288, 7}, {kAny, 8}}},
    {4096, {{262144, 7}, {kAny, 8}}},
    {kAny, {{8192, 7}, {16384, 5}, {262144, 7}, {kAny, 8}}},
};
const Band kReduce[] = {
    {4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {kAny, 3}}},
    {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {kAny, 1}}},
    {16, {{8192, 4}, {kAny, 5}}},
    {32, {{4096, 4}, {kAny, 5}}},
    {256, {{kAny, 5}}},
    {512, {{8192, 5}, {16384, 6}, {kAny, 5}}},
    {2048, {{kAny, 5}}},
    {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {kAny, 5}}},
    {kAny, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {kAny, 5}}},
};
const Band kReduceScatter[] = {
    {4, {{65536, 3}, {131072, 4}, {kAny, 3}}},
    {8, {{8, 1}, {262144, 2}, {kAny, 3}}},
    {32, {{262144, 2}, {kAny, 3}}},
    {64, {{64, 1}, {2048, 2}, {524288, 4}, {kAny, 3}}},
    {128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}, {kAny, 4}}},
    {256, {{256, 1}, {512, 2}, {kAny, 4}}},
    {512, {{256, 1}, {1024, 2}, {kAny, 4}}},
    {1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}, {kAny, 4}}},
    {2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}, {kAny, 4}}},
    {4096, {{512, 1}, {4096, 2}, {kAny, 4}}},
    {kAny, {{1024, 1}, {8192, 2}, {kAny, 4}}},
};
const Band kAllgather[] = {
    {3, {{kAny, 6}}},
    {32, {{kAny, 3}}},
    {64, {{1024, 3}, {65536, 5}, {kAny, 4}}},
    {128, {{512, 3}, {65536, 5}, {kAny, 4}}},
    {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAny, 4}}},
    {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAny, 4}}},
    {1024, {{64, 3}, {256, 2}, {2048, 3}, {kAny, 5}}},
    {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {kAny, 5}}},
    {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {kAny, 5}}},
    {kAny, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {kAny, 5}}},
};
const Band kGather[] = {
    {4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}, {kAny, 3}}},
    {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}, {kAny, 3}}},
    {256, {{kAny, 2}}},
    {512, {{2048, 2}, {8192, 1}, {kAny, 2}}},
    {kAny, {{kAny, 2}}},
};
const Band kScatter[] = {
    {4, {{2, 3}, {131072, 1}, {262144, 3}, {kAny, 1}}},
    {8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}, {kAny, 1}}},
    {16, {{16384, 2}, {1048576, 3}, {kAny, 1}}},
    {32, {{16384, 2}, {32768, 1}, {kAny, 3}}},
    {64, {{512, 2}, {8192, 3}, {16384, 2}, {kAny, 3}}},
    {kAny, {{512, 2}, {kAny, 3}}},
};

enum Attr { kBcastKnomialRadix, kBcastChains, kReduceChains, kAttrs };

// Open MPI's number for `c` over `p` ranks with `bytes` (its total_dsize: the buffer of an all-reduce, bcast or
// reduce, a rank's block of an all-to-all, all-gather, gather or scatter, the whole vector of a reduce-scatter).
int decide(const Band* bands, size_t count, int64_t p, double bytes) {
  for (size_t i = 0; i < count; ++i) {
    if (p >= bands[i].below) continue;
    for (const Rule& r : bands[i].rules)
      if (r.below == kAny || bytes < double(r.below)) return r.alg;
  }
  return 0;
}
template <size_t N>
int decide(const Band (&bands)[N], int64_t p, double bytes) {
  return decide(bands, N, p, bytes);
}

bool power_of_two(int64_t p) { return p > 0 && (p & (p - 1)) == 0; }

std::string rule_text(const char* table, int alg, const char* name, int64_t p, double bytes) {
  return fmt::format("{} algorithm {} ({}) for {} ranks and {:g} B", table, alg, name, p, bytes);
}

struct Pick {
  Algorithm algorithm = Algorithm::BinomialTree;
  std::string why;
  std::string substitute;  // non-empty: Open MPI runs something gpmc does not model; what is priced instead
  int64_t chains = 1;
};

Pick bcast_pick(const std::vector<double>& v, int64_t p, double n) {
  const int alg = decide(kBcast, p, n);
  static const char* names[] = {"", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree",
                                "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"};
  Pick out;
  out.why = rule_text("bcast", alg, alg >= 1 && alg <= 9 ? names[alg] : "?", p, n);
  switch (alg) {
    case 1: out.algorithm = Algorithm::Linear; break;
    case 2:
      out.algorithm = Algorithm::Chain;
      out.chains = int64_t(v[kBcastChains]); break;
    case 3:
      out.algorithm = Algorithm::Chain;
      out.why += ": no segment size, so one chain carrying the whole message"; break;
    case 4: out.algorithm = Algorithm::SplitBinaryTree; break;
    case 5: out.algorithm = Algorithm::BinaryTree; break;
    case 7: out.algorithm = Algorithm::Knomial; break;
    case 8:
      if (power_of_two(p)) {
        out.algorithm = Algorithm::ScatterDoublingAllgather;
      } else {
        out.algorithm = Algorithm::ScatterAllgather;
        out.substitute = fmt::format(
            "Open MPI's scatter_allgather gathers by recursive doubling with extra halving exchanges when the rank "
            "count ({}) is not a power of two, which gpmc does not model; priced as scatter_allgather (the ring "
            "gather)",
            p);
      }
      break;
    case 9: out.algorithm = Algorithm::ScatterAllgather; break;
    default: out.algorithm = Algorithm::BinomialTree; break;
  }
  return out;
}

Pick reduce_pick(const std::vector<double>& v, int64_t p, double n) {
  const int alg = decide(kReduce, p, n);
  static const char* names[] = {"", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary",
                                "rabenseifner"};
  Pick out;
  out.why = rule_text("reduce", alg, alg >= 1 && alg <= 7 ? names[alg] : "?", p, n);
  switch (alg) {
    case 1: out.algorithm = Algorithm::Linear; break;
    case 2:
      out.algorithm = Algorithm::Chain;
      out.chains = int64_t(v[kReduceChains]); break;
    case 3:
      out.algorithm = Algorithm::Chain;
      out.why += ": no segment size, so one chain carrying the whole message"; break;
    case 4: out.algorithm = Algorithm::BinaryTree; break;
    case 6: out.algorithm = Algorithm::InOrderBinaryTree; break;
    case 7: out.algorithm = Algorithm::Rabenseifner; break;
    default: out.algorithm = Algorithm::BinomialTree; break;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& openmpi_library_attributes() {
  static const std::vector<std::string> names = {"bcast_knomial_radix", "bcast_chains", "reduce_chains"};
  return names;
}

LibraryChoice openmpi_choice(const std::vector<double>& v, Collective c, const Layout& l, double n) {
  const int64_t p = l.ranks;
  LibraryChoice out;
  out.variant.radix = int64_t(v[kBcastKnomialRadix]);
  out.variant.bcast_chains = int64_t(v[kBcastChains]);
  out.variant.reduce_chains = int64_t(v[kReduceChains]);
  auto take = [&](const Pick& pick) {
    out.algorithm = pick.algorithm;
    out.why = pick.why;
    out.substitute = pick.substitute;
    if (pick.algorithm == Algorithm::Chain)
      (c == Collective::Bcast ? out.variant.bcast_chains : out.variant.reduce_chains) = pick.chains;
  };
  auto set = [&](Algorithm a, std::string why) {
    out.algorithm = a;
    out.why = std::move(why);
  };
  switch (c) {
    case Collective::Allreduce: {
      const int alg = decide(kAllreduce, p, n);
      static const char* names[] = {"", "basic_linear", "nonoverlapping", "recursive_doubling", "ring",
                                    "segmented_ring", "rabenseifner"};
      std::string why = rule_text("allreduce", alg, alg >= 1 && alg <= 6 ? names[alg] : "?", p, n);
      switch (alg) {
        case 1: set(Algorithm::Linear, why); break;
        case 2: {
          // ompi_coll_base_allreduce_intra_nonoverlapping: the communicator's reduce, then its bcast, each as the
          // tuned component decides them for the same buffer.
          Pick r = reduce_pick(v, p, n), b = bcast_pick(v, p, n);
          set(Algorithm::NonOverlapping, fmt::format("{}; its reduce: {}; its bcast: {}", why, r.why, b.why));
          out.variant.reduce_part = r.algorithm;
          out.variant.reduce_part_chains = r.chains;
          out.variant.bcast_part = b.algorithm;
          out.variant.bcast_part_chains = b.chains;
          out.substitute = !r.substitute.empty() ? r.substitute : b.substitute;
          break;
        }
        case 3: set(Algorithm::RecursiveDoubling, why); break;
        case 5: set(Algorithm::Ring, why + ": no segment size, so Open MPI runs its plain ring"); break;
        case 6: set(Algorithm::Rabenseifner, why); break;
        default: set(Algorithm::Ring, why); break;
      }
      break;
    }
    case Collective::Bcast: take(bcast_pick(v, p, n)); break;
    case Collective::Reduce: take(reduce_pick(v, p, n)); break;
    case Collective::Allgather: {
      const int alg = decide(kAllgather, p, n);
      static const char* names[] = {"", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"};
      std::string why = rule_text("allgather", alg, alg >= 1 && alg <= 6 ? names[alg] : "?", p, n);
      switch (alg) {
        case 2: set(Algorithm::Bruck, why); break;
        case 3:
          if (power_of_two(p)) set(Algorithm::RecursiveDoubling, why);
          else set(Algorithm::Bruck, why + ": the rank count is not a power of two, so Open MPI runs Bruck's");
          break;
        case 5: set(Algorithm::NeighborExchange, why); break;
        case 6: set(Algorithm::Ring, why + ": one exchange between the two ranks"); break;
        default: set(Algorithm::Ring, why); break;
      }
      break;
    }
    case Collective::ReduceScatter: {
      const int alg = decide(kReduceScatter, p, n);
      static const char* names[] = {"", "non-overlapping", "recursive_halving", "ring", "butterfly"};
      std::string why = rule_text("reduce_scatter", alg, alg >= 1 && alg <= 4 ? names[alg] : "?", p, n);
      switch (alg) {
        case 1: {
          Pick r = reduce_pick(v, p, n);
          set(Algorithm::NonOverlapping, fmt::format("{}; its reduce: {}", why, r.why));
          out.variant.reduce_part = r.algorithm;
          out.variant.reduce_part_chains = r.chains;
          out.substitute = r.substitute;
          break;
        }
        case 2: set(Algorithm::RecursiveHalving, why); break;
        case 4: set(Algorithm::Butterfly, why); break;
        default: set(Algorithm::Ring, why); break;
      }
      break;
    }
    case Collective::Alltoall: {
      const int alg = decide(kAlltoall, p, n);
      static const char* names[] = {"", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"};
      std::string why = rule_text("alltoall", alg, alg >= 1 && alg <= 5 ? names[alg] : "?", p, n);
      switch (alg) {
        case 1: set(Algorithm::Linear, why); break;
        case 3: set(Algorithm::Bruck, why); break;
        case 4:
          set(Algorithm::Linear, why + ": with no limit on outstanding requests (the default), every message at once");
          break;
        case 5: set(Algorithm::Pairwise, why + ": one exchange between the two ranks"); break;
        default: set(Algorithm::Pairwise, why); break;
      }
      break;
    }
    case Collective::Gather: {
      const int alg = decide(kGather, p, n);
      static const char* names[] = {"", "basic_linear", "binomial", "linear_sync"};
      std::string why = rule_text("gather", alg, alg >= 1 && alg <= 3 ? names[alg] : "?", p, n);
      set(alg == 1 ? Algorithm::Linear : alg == 3 ? Algorithm::LinearSync : Algorithm::BinomialTree, why);
      break;
    }
    case Collective::Scatter: {
      const int alg = decide(kScatter, p, n);
      static const char* names[] = {"", "basic_linear", "binomial", "linear_nb"};
      std::string why = rule_text("scatter", alg, alg >= 1 && alg <= 3 ? names[alg] : "?", p, n);
      set(alg == 2 ? Algorithm::BinomialTree : Algorithm::Linear, why);
      break;
    }
    default: {  // barrier
      const int alg = decide(kBarrier, p, 0);
      static const char* names[] = {"", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"};
      std::string why = fmt::format("barrier algorithm {} ({}) for {} ranks", alg,
                                    alg >= 1 && alg <= 6 ? names[alg] : "?", p);
      set(alg == 1   ? Algorithm::Linear
          : alg == 3 ? Algorithm::RecursiveDoubling
          : alg == 6 ? Algorithm::BinomialTree
                     : Algorithm::Dissemination,
          alg == 4 ? why + ": the dissemination barrier" : alg == 6 ? why + ": a binomial fan-in and fan-out" : why);
      break;
    }
  }
  return out;
}

Algorithm openmpi_alltoallv_choice(int64_t p, std::string& why) {
  const int alg = decide(kAlltoallv, p, 0);
  why = fmt::format("alltoallv algorithm {} ({}) for {} ranks", alg, alg == 1 ? "basic_linear" : "pairwise", p);
  return alg == 1 ? Algorithm::Linear : Algorithm::Pairwise;
}

}  // namespace gpm::mpi
