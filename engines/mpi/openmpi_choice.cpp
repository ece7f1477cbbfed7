// openmpi_choice.cpp: Open MPI's choice of a collective's algorithm (library_choice.h): the `tuned` component's fixed
// decisions, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (github.com/open-mpi/ompi, main of 2026), read for an
// intra-communicator and a commutative operation. Their switch points (bands of communicator sizes, each a list of
// message sizes) are written below as tables of the same numbers; the file says they are averages of measurements
// that several developers took on their clusters with the ompi-collectives-tuning package. The algorithm numbers are
// those of each collective's coll_tuned_<collective>_algorithm parameter.
// The parameters the decisions pass with them (the reduce's fan-out 2, segment sizes of 0: one segment) and the
// component's defaults (the k-nomial broadcast's radix 4) come from the `openmpi_library` type (stdlib/mpi.gpm).
// A user's dynamic rules file (openmpi_rules.h), where given, decides first, as Open MPI's dynamic decisions do.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engines/mpi/library_choice.h"
#include "engines/mpi/openmpi_rules.h"

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

int fixed_decision(Collective c, int64_t p, double n) {
  switch (c) {
    case Collective::Allreduce: return decide(kAllreduce, p, n);
    case Collective::Bcast: return decide(kBcast, p, n);
    case Collective::Reduce: return decide(kReduce, p, n);
    case Collective::Allgather: return decide(kAllgather, p, n);
    case Collective::ReduceScatter: return decide(kReduceScatter, p, n);
    case Collective::Alltoall: return decide(kAlltoall, p, n);
    case Collective::Gather: return decide(kGather, p, n);
    case Collective::Scatter: return decide(kScatter, p, n);
    default: return decide(kBarrier, p, 0);
  }
}

bool power_of_two(int64_t p) { return p > 0 && (p & (p - 1)) == 0; }

// What a choice needs: the type's values, the layout, the operation's bytes and the user's rules (or null).
struct Context {
  const std::vector<double>& v;
  const Layout& l;
  double n;
  const OpenmpiRules* rules;
};

// Open MPI's algorithm for `c`: a rule of the user's file that names one (not 0), else the fixed decision; with the
// fan-out and segment size it runs with, and the text that says which decided.
struct Decision {
  int alg = 0;
  int64_t faninout = 0, segsize = 0, reqs = 0;
  const OpenmpiMsgRule* rule = nullptr;
  std::string why;
  std::string released;  // a classic file that Open MPI 5.0 and earlier read otherwise here: what they would run
  int64_t released_at = -1;
};

// The bytes Open MPI's dynamic decisions compare with a rule's message sizes (coll_tuned_decision_dynamic.c): the
// buffer of an all-reduce, bcast or reduce, the whole vector of a reduce-scatter, the ranks' blocks together of an
// all-to-all, all-gather, gather or scatter, nothing for a barrier.
double rules_bytes(Collective c, int64_t p, double n) {
  switch (c) {
    case Collective::Alltoall:
    case Collective::Allgather:
    case Collective::Gather:
    case Collective::Scatter: return n * double(p);
    case Collective::Barrier: return 0;
    default: return n;
  }
}

Decision decision(const Context& x, Collective c) {
  Decision d;
  const int64_t p = x.l.ranks;
  const auto& names = openmpi_algorithm_names(openmpi_collective_name(c));
  auto name = [&](int alg) { return alg >= 0 && size_t(alg) < names.size() ? names[size_t(alg)] : std::string("?"); };
  if (x.rules) {
    const double bytes = rules_bytes(c, p, x.n);
    const OpenmpiMsgRule* r = find_openmpi_rule(*x.rules, openmpi_collective_name(c), x.l, bytes);
    const OpenmpiMsgRule* old =
        x.rules->classic ? find_openmpi_rule_released(*x.rules, openmpi_collective_name(c), x.l, bytes) : r;
    if ((r && r->alg ? r->alg : 0) != (old && old->alg ? old->alg : 0) ||
        (r && old && r->alg && (r->faninout != old->faninout || r->segsize != old->segsize || r->reqs != old->reqs))) {
      d.released = old && old->alg ? fmt::format("{} algorithm {} ({})", openmpi_collective_name(c), old->alg,
                                                 name(old->alg))
                                   : std::string("the fixed decision");
      if (old && old->alg && (old->faninout || old->segsize || old->reqs))
        d.released += fmt::format(" with fan-in/out {}, segment size {}, request limit {}", old->faninout,
                                  old->segsize, old->reqs);
      d.released_at = old ? int64_t(old->at) : -1;
    }
    if (r && r->alg) {
      d.alg = r->alg;
      d.faninout = r->faninout;
      d.segsize = r->segsize;
      d.reqs = r->reqs;
      d.rule = r;
      d.why = fmt::format("the rules file's {} algorithm {} ({}) for {} ranks and {:g} B", openmpi_collective_name(c),
                          d.alg, name(d.alg), p, bytes);
      return d;
    }
  }
  d.alg = fixed_decision(c, p, x.n);
  // The fan-outs the fixed decisions pass: the reduce's 2 (the type's reduce_chains), the all-gather's 2 (Bruck's
  // radix), the bcast's 0 (raised to one chain: the type's bcast_chains).
  d.faninout = c == Collective::Reduce ? int64_t(x.v[kReduceChains])
               : c == Collective::Bcast ? int64_t(x.v[kBcastChains])
               : c == Collective::Allgather ? 2
                                            : 0;
  d.why = c == Collective::Barrier
              ? fmt::format("barrier algorithm {} ({}) for {} ranks", d.alg, name(d.alg), p)
              : fmt::format("{} algorithm {} ({}) for {} ranks and {:g} B", collective_name(c), d.alg, name(d.alg), p,
                            x.n);
  return d;
}

struct Pick {
  Algorithm algorithm = Algorithm::BinomialTree;
  std::string why;
  std::string unmodelled;  // a user's rule asks for what gpmc does not model (an error)
  const OpenmpiMsgRule* rule = nullptr;
  int64_t chains = 1;
  int64_t radix = 0;   // > 0: a k-nomial reduce's radix (the rule's fan-out)
  int64_t bruck_radix = 0;  // > 0: an allgather's Bruck radix (the fan-out Open MPI passes)
  Variant parts;       // a composition's parts
  double segment = 0;     // a rule's seg_size (bytes) for a pipeline or a tree in segments
  bool segmented = false;  // a tree or chains in segments (Variant::segmented)
  bool segment_floor = false;  // the segment in whole elements rounded down (the split binary tree's)
  std::string released;    // Decision::released
  int64_t released_at = -1;
};

// gpmc's algorithm for Open MPI's decision `d` of `c`.
Pick pick(const Context& x, Collective c, const Decision& d);

// What a user's rule asks for that gpmc does not model (segments of some algorithms) or Open MPI cannot run (a
// Bruck radix below 2).
std::string unmodelled_parameters(Collective c, const Decision& d) {
  if (!d.rule) return "";
  if (c == Collective::Allgather && d.alg == 2 && d.faninout < 2)
    return fmt::format("its faninout {} is Bruck's radix, and with a radix below 2 Open MPI's k_bruck never ends; "
                       "give faninout 2 or more",
                       d.faninout);
  return "";
}

Pick pick(const Context& x, Collective c, const Decision& d) {
  const int64_t p = x.l.ranks;
  Pick out;
  out.why = d.why;
  out.rule = d.rule;
  out.released = d.released;
  out.released_at = d.released_at;
  out.unmodelled = unmodelled_parameters(c, d);
  auto chains = [&](int64_t f) { return std::max<int64_t>(1, f); };  // build_chain raises a fan-out below 1 to 1
  // A composition's parts: the reduce (and bcast, gather, allgather) Open MPI's tuned component would run for the
  // same buffer (`whole`: for p times the buffer, the bcast of an allgather's gathered blocks).
  auto part = [&](Collective pc, Algorithm& a, int64_t& n_chains, bool whole = false) {
    const Context xp{x.v, x.l, whole ? x.n * double(p) : x.n, x.rules};
    Pick sub = pick(xp, pc, decision(xp, pc));
    a = sub.algorithm;
    n_chains = sub.chains;
    out.why += fmt::format("; its {}: {}", collective_name(pc), sub.why);
    if (out.released.empty() && !sub.released.empty()) {
      out.released = fmt::format("for its {}, {}", collective_name(pc), sub.released);
      out.released_at = sub.released_at;
    }
    if (out.unmodelled.empty()) {
      out.unmodelled = sub.unmodelled;
      if (!sub.unmodelled.empty()) out.rule = sub.rule;
    }
    if (out.unmodelled.empty() && sub.segment > 0) {
      // A non-overlapping composition's reduce or bcast in segments (ompi_coll_base_{reduce,bcast}_generic or the
      // pipeline) takes the operation's one segment size; another part in segments of another size, and the parts of
      // the other compositions, are not modelled.
      const bool nonoverlapping = c == Collective::Allreduce || c == Collective::ReduceScatter;
      if (!nonoverlapping || (out.segment > 0 && (out.segment != sub.segment || out.segment_floor != sub.segment_floor))) {
        out.unmodelled = nonoverlapping ? fmt::format("its {} runs in segments of {:g} B and its other part in "
                                                      "segments of {:g} B, which gpmc's composition does not hold (one "
                                                      "segment size for both)",
                                                      collective_name(pc), sub.segment, out.segment)
                                        : fmt::format("its {} runs in segments of {:g} B (seg_size), which gpmc does "
                                                      "not model inside the composition",
                                                      collective_name(pc), sub.segment);
        out.rule = sub.rule;
      } else {
        out.segment = sub.segment;
        out.segment_floor = sub.segment_floor;
        (pc == Collective::Reduce ? out.parts.reduce_part_segmented : out.parts.bcast_part_segmented) = sub.segmented;
      }
    }
    if (sub.radix > 0) out.radix = sub.radix;  // a k-nomial reduce's radix
    if (sub.bruck_radix > 0) out.bruck_radix = sub.bruck_radix;
    return sub;
  };
  // A rule's seg_size on a bcast or reduce over a chain or tree: ompi_coll_base_{bcast,reduce}_generic in segments.
  auto in_segments = [&](Algorithm a) {
    out.algorithm = a;
    if (d.segsize <= 0) return;
    out.segmented = true;
    out.segment = double(d.segsize);
    out.why += fmt::format(": seg_size {} B", d.segsize);
  };
  // Bcast's and reduce's algorithms 1-3 alike: linear, chain (the rule's fan-out chains) and pipeline (one chain).
  auto linear_or_chain = [&](int alg) {
    if (alg == 1) {
      out.algorithm = Algorithm::Linear;
    } else if (alg == 2) {
      out.chains = chains(d.faninout);
      in_segments(Algorithm::Chain);
    } else if (alg == 3 && d.segsize > 0) {
      // ompi_coll_base_{bcast,reduce}_intra_pipeline: the chain 0, 1, .., p - 1 carrying the message in segments.
      out.algorithm = Algorithm::Pipeline;
      out.segment = double(d.segsize);
      out.why += fmt::format(": seg_size {} B", d.segsize);
    } else if (alg == 3) {
      out.algorithm = Algorithm::Chain;
      out.why += ": no segment size, so one chain carrying the whole message";
    } else {
      return false;
    }
    return true;
  };
  switch (c) {
    case Collective::Allreduce:
      switch (d.alg) {
        case 1: out.algorithm = Algorithm::Linear; break;
        case 2:
          // ompi_coll_base_allreduce_intra_nonoverlapping: the communicator's reduce, then its bcast.
          out.algorithm = Algorithm::NonOverlapping;
          part(Collective::Reduce, out.parts.reduce_part, out.parts.reduce_part_chains);
          part(Collective::Bcast, out.parts.bcast_part, out.parts.bcast_part_chains);
          if (out.unmodelled.empty() && out.radix > 0 && out.parts.bcast_part == Algorithm::Knomial &&
              out.radix != int64_t(x.v[kBcastKnomialRadix]))
            out.unmodelled = fmt::format("its reduce's k-nomial tree has radix {} and its bcast's radix {:g}, which "
                                         "gpmc's composition does not hold (one radix for both)",
                                         out.radix, x.v[kBcastKnomialRadix]);
          break;
        case 3: out.algorithm = Algorithm::RecursiveDoubling; break;
        case 5:
          // ompi_coll_base_allreduce_intra_ring_segmented: with a seg_size, phases of segments (the lowering counts
          // them: they depend on the element size); without, the plain ring.
          out.algorithm = Algorithm::Ring;
          if (d.segsize > 0) {
            out.segment = double(d.segsize);
            out.why += fmt::format(": seg_size {} B", d.segsize);
          } else {
            out.why += ": no segment size, so Open MPI runs its plain ring";
          }
          break;
        case 6: out.algorithm = Algorithm::Rabenseifner; break;
        case 7: {
          // ompi_coll_base_allreduce_intra_allgather_reduce: the communicator's allgather of the whole buffer.
          out.algorithm = Algorithm::AllgatherReduce;
          int64_t unused = 1;
          const Pick sub = part(Collective::Allgather, out.parts.allgather_part, unused);
          out.parts.gather_part = sub.parts.gather_part;  // an allgather that is itself a gather, then a bcast
          out.parts.bcast_part = sub.parts.bcast_part;
          out.parts.bcast_part_chains = sub.parts.bcast_part_chains;
          break;
        }
        default: out.algorithm = Algorithm::Ring; break;
      }
      break;
    case Collective::Bcast:
      if (linear_or_chain(d.alg)) break;
      switch (d.alg) {
        case 4:
          if (d.segsize > 0 && (x.n < 2 || double(d.segsize) > std::floor(x.n / 2))) {
            // ompi_coll_base_bcast_intra_split_bintree: a segment larger than a half (or a buffer with no second
            // half) runs the chain of one in segments instead.
            out.chains = 1;
            out.why += ": the seg_size exceeds half the message, so Open MPI runs the chain of 1";
            in_segments(Algorithm::Chain);
          } else {
            in_segments(Algorithm::SplitBinaryTree);
            out.segment_floor = out.segmented;
          }
          break;
        case 5: in_segments(Algorithm::BinaryTree); break;
        case 7: in_segments(Algorithm::Knomial); break;
        case 8:
          // ompi_coll_base_bcast_intra_scatter_allgather: the binomial scatter, then recursive doubling (with
          // recursive-halving hand-ons where the rank count is not a power of two); the lowering switches to the
          // basic linear bcast with fewer elements than ranks, as Open MPI does.
          out.algorithm = Algorithm::ScatterDoublingAllgather;
          if (!power_of_two(p)) out.why += ": not a power of two of ranks, so with recursive-halving hand-ons";
          break;
        case 9: out.algorithm = Algorithm::ScatterAllgather; break;
        default: in_segments(Algorithm::BinomialTree); break;
      }
      break;
    case Collective::Reduce:
      if (linear_or_chain(d.alg)) break;
      switch (d.alg) {
        case 4: in_segments(Algorithm::BinaryTree); break;
        case 6: in_segments(Algorithm::InOrderBinaryTree); break;
        case 7: out.algorithm = Algorithm::Rabenseifner; break;
        case 8:
          // ompi_coll_base_reduce_intra_knomial: the k-nomial tree of the rule's fan-out as its radix, whole
          // buffers (it takes no segments). build_kmtree never ends with a radix below 2.
          out.algorithm = Algorithm::Knomial;
          out.radix = d.faninout;
          if (d.faninout < 2)
            out.unmodelled = fmt::format("its faninout {} is the k-nomial tree's radix, and with a radix below 2 Open "
                                         "MPI's build_kmtree never ends; give faninout 2 or more",
                                         d.faninout);
          else
            out.why += fmt::format(": radix {} (the rule's faninout)", d.faninout);
          if (d.segsize > 0) out.why += ", whole buffers (Open MPI's k-nomial reduce takes no segments)";
          break;
        default: in_segments(Algorithm::BinomialTree); break;
      }
      break;
    case Collective::Allgather:
      switch (d.alg) {
        case 1: {
          // ompi_coll_base_allgather_intra_basic_linear: the communicator's gather to rank 0, then its bcast of the
          // gathered p blocks.
          out.algorithm = Algorithm::Linear;
          int64_t unused = 1;
          part(Collective::Gather, out.parts.gather_part, unused);
          part(Collective::Bcast, out.parts.bcast_part, out.parts.bcast_part_chains, true);
          break;
        }
        case 2:
          // ompi_coll_base_allgather_intra_k_bruck with the fan-out as its radix (the fixed decisions pass 2).
          out.algorithm = Algorithm::Bruck;
          out.bruck_radix = d.faninout;
          if (d.faninout > 2) out.why += fmt::format(": radix {} (the rule's faninout)", d.faninout);
          break;
        case 3:
          out.algorithm = power_of_two(p) ? Algorithm::RecursiveDoubling : Algorithm::Bruck;
          if (!power_of_two(p)) out.why += ": the rank count is not a power of two, so Open MPI runs Bruck's";
          break;
        case 5: out.algorithm = Algorithm::NeighborExchange; break;
        case 6:
          out.algorithm = Algorithm::Ring;
          out.why += ": one exchange between the two ranks";
          break;
        case 7: out.algorithm = Algorithm::Sparbit; break;
        case 8: out.algorithm = Algorithm::DirectMessaging; break;
        default: out.algorithm = Algorithm::Ring; break;
      }
      break;
    case Collective::ReduceScatter:
      switch (d.alg) {
        case 1:
          out.algorithm = Algorithm::NonOverlapping;
          part(Collective::Reduce, out.parts.reduce_part, out.parts.reduce_part_chains);
          break;
        case 2: out.algorithm = Algorithm::RecursiveHalving; break;
        case 4: out.algorithm = Algorithm::Butterfly; break;
        default: out.algorithm = Algorithm::Ring; break;
      }
      break;
    case Collective::Alltoall:
      switch (d.alg) {
        case 1: out.algorithm = Algorithm::Linear; break;
        case 3: out.algorithm = Algorithm::Bruck; break;
        case 4:
          out.algorithm = Algorithm::Linear;
          if (d.reqs > 0 && d.reqs < p - 1) {
            out.parts.requests = d.reqs;
            out.why += fmt::format(": at most {} sends in flight", d.reqs);
          } else {
            out.why += d.reqs > 0 ? fmt::format(": a limit of {} requests, at least the {} messages, so every message "
                                                "at once",
                                                d.reqs, p - 1)
                                  : std::string(": with no limit on outstanding requests (the default), every "
                                                "message at once");
          }
          break;
        case 5:
          out.algorithm = Algorithm::Pairwise;
          out.why += ": one exchange between the two ranks";
          break;
        default: out.algorithm = Algorithm::Pairwise; break;
      }
      break;
    case Collective::Gather:
      out.algorithm = d.alg == 1 ? Algorithm::Linear : d.alg == 3 ? Algorithm::LinearSync : Algorithm::BinomialTree;
      if (d.alg == 3 && d.segsize > 0) {
        // ompi_coll_base_gather_intra_linear_sync: the rule's seg_size is each block's first segment (the lowering
        // counts it in whole elements).
        out.segment = double(d.segsize);
        out.why += fmt::format(": seg_size {} B", d.segsize);
      }
      break;
    case Collective::Scatter: out.algorithm = d.alg == 2 ? Algorithm::BinomialTree : Algorithm::Linear; break;
    default:  // barrier
      switch (d.alg) {
        case 1: out.algorithm = Algorithm::Linear; break;
        case 2: out.algorithm = Algorithm::DoubleRing; break;
        case 3:
        case 5: out.algorithm = Algorithm::RecursiveDoubling; break;  // two_proc: the one exchange of two ranks
        case 6:
          out.algorithm = Algorithm::BinomialTree;
          out.why += ": a binomial fan-in and fan-out";
          break;
        default:
          out.algorithm = Algorithm::Dissemination;
          out.why += ": the dissemination barrier";
          break;
      }
      break;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& openmpi_library_attributes() {
  static const std::vector<std::string> names = {"bcast_knomial_radix", "bcast_chains", "reduce_chains"};
  return names;
}

LibraryChoice openmpi_choice(const std::vector<double>& v, Collective c, const Layout& l, double n,
                             const OpenmpiRules* rules) {
  const Context x{v, l, n, rules};
  Pick got = pick(x, c, decision(x, c));
  LibraryChoice out;
  out.algorithm = got.algorithm;
  out.why = got.why;
  out.unmodelled = got.unmodelled;
  out.rule_at = got.rule ? int64_t(got.rule->at) : -1;
  out.released = got.released;
  out.released_rule_at = got.released_at;
  out.segment = got.segment;
  out.segment_floor = got.segment_floor;
  out.variant = got.parts;
  out.variant.segmented = got.segmented;
  out.variant.radix = got.radix > 0 ? got.radix : int64_t(v[kBcastKnomialRadix]);
  if (got.bruck_radix >= 2) out.variant.bruck_radix = got.bruck_radix;
  out.variant.bcast_chains = c == Collective::Bcast ? got.chains : int64_t(v[kBcastChains]);
  out.variant.reduce_chains = c == Collective::Reduce ? got.chains : int64_t(v[kReduceChains]);
  return out;
}

Algorithm openmpi_alltoallv_choice(int64_t p, const OpenmpiRules* rules, const Layout& l, std::string& why,
                                   std::string& released, int64_t& released_at) {
  // A rules file's alltoallv rules are matched with a message size of 0 (Open MPI knows no total there).
  if (rules) {
    const OpenmpiMsgRule* r = find_openmpi_rule(*rules, "alltoallv", l, 0);
    const OpenmpiMsgRule* old = rules->classic ? find_openmpi_rule_released(*rules, "alltoallv", l, 0) : r;
    if ((r ? r->alg : 0) != (old ? old->alg : 0)) {
      released = old && old->alg ? fmt::format("alltoallv algorithm {} ({})", old->alg,
                                               old->alg == 1 ? "basic_linear" : "pairwise")
                                 : std::string("the fixed decision");
      released_at = old ? int64_t(old->at) : -1;
    }
    if (r && r->alg) {
      why = fmt::format("the rules file's alltoallv algorithm {} ({}) for {} ranks", r->alg,
                        r->alg == 1 ? "basic_linear" : "pairwise", p);
      return r->alg == 1 ? Algorithm::Linear : Algorithm::Pairwise;
    }
  }
  const int alg = decide(kAlltoallv, p, 0);
  why = fmt::format("alltoallv algorithm {} ({}) for {} ranks", alg, alg == 1 ? "basic_linear" : "pairwise", p);
  return alg == 1 ? Algorithm::Linear : Algorithm::Pairwise;
}

}  // namespace gpm::mpi
