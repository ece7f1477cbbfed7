// lower_mpi_collective.cpp: an app's `mpi` collective (all but halo, the point-to-point operations and alltoallv):
// its algorithm (named, an MPI library's choice, or NCCL's), its buffer checks, segment and channels, as the fitted
// models' engine or the fabric model's request.
#include <fmt/format.h>

#include "engines/mpi/library_choice.h"
#include "engines/mpi/mpi_engine.h"
#include "engines/mpi/nccl_engine.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"

namespace gpm::lower {

using namespace frontend;

namespace {

// The words of algorithm_name and collective_name, back to their values.
mpi::Algorithm algorithm_of(const std::string& word) {
  for (int a = 0; a <= int(mpi::kLastAlgorithm); ++a)
    if (word == mpi::algorithm_name(mpi::Algorithm(a))) return mpi::Algorithm(a);
  return mpi::Algorithm::Dissemination;
}

mpi::Collective collective_of(const std::string& op) {
  for (int c = 0; c <= int(mpi::Collective::Scatter); ++c)
    if (op == mpi::collective_name(mpi::Collective(c))) return mpi::Collective(c);
  return mpi::Collective::Barrier;
}

}  // namespace

bool Lowerer::lower_collective(const Stmt& s, const MpiMachineInfo& info, const mpi::Choice& choice,
                               const mpi::Layout& layout, bool on_fabric, int64_t ranks, std::vector<ValueId>& inputs,
                               MpiFabricRequest& request, std::shared_ptr<mpi::CommEngine>& engine, std::string& title,
                               std::string& library_note) {
  mpi::Collective c = collective_of(s.name);
  mpi::Algorithm alg = mpi::default_algorithm(c);
  const Attr* alg_attr = find_attr(s.attrs, "algorithm");
  std::string alg_word = alg_attr ? word_of(alg_attr->word_param, alg_attr->value->name) : "";
  if (alg_word == "auto") alg_attr = nullptr;  // the model's own choice, as when none is named
  // NCCL's algorithms and protocols belong to the nccl model (lower_mpi_nccl.cpp); MPI's algorithms to the others.
  if (!lower_nccl_choice(s, choice.model, alg_attr, alg_word, request)) return false;
  if (choice.model == mpi::CommModel::Nccl) {
    alg = mpi::Algorithm::Ring;
  } else if (alg_attr) {
    alg = algorithm_of(alg_word);
    if (!mpi::algorithm_allowed(c, alg)) {
      diags_.error(DiagKind::ConflictingAttributes, alg_attr->value->range,
                   fmt::format("`algorithm = {}` for `mpi {}` is NCCL's: it needs the nccl model (`model = nccl`)",
                               alg_word, s.name));
      return false;
    }
    if (alg == mpi::Algorithm::Hierarchical && !mpi::balanced_nodes(layout)) {
      diags_.error(DiagKind::InvalidMapping, alg_attr->value->range,
                   fmt::format("`algorithm = hierarchical` runs one ring per place in a node, which needs the same "
                               "number of ranks on every node, and the {} ranks of `mpi {}` fill {} nodes of {} "
                               "unevenly",
                               ranks, s.name, layout.nodes, layout.ranks_per_node));
      return false;
    }
    if (alg == mpi::Algorithm::ScatterDoublingAllgather && (ranks & (ranks - 1)) != 0) {
      diags_.error(DiagKind::ConflictingAttributes, alg_attr->value->range,
                   fmt::format("`algorithm = scatter_doubling_allgather` gathers the scattered pieces by recursive "
                               "doubling, which needs a power-of-two number of ranks, and `ranks` is {} (MPICH runs "
                               "it only then); `scatter_allgather` gathers them over a ring",
                               ranks));
      return false;
    }
  }
  size_t sizes_at = inputs.size();
  inputs.push_back(c == mpi::Collective::Barrier ? b_.constant(0, Dim::byte(), s.range)
                                                 : mpi_bytes(s, "bytes", true, "the bytes of the operation"));
  // A rank's buffer: the operation's bytes; the gathered output of an all-gather or a gather, an all-to-all's send
  // buffer and a scatter's (one block per rank) are `ranks` times them.
  if (c == mpi::Collective::Allgather || c == mpi::Collective::Alltoall || c == mpi::Collective::Gather ||
      c == mpi::Collective::Scatter)
    check_rank_buffer(s, b_.binary(Opcode::Mul, inputs[sizes_at], b_.constant(double(ranks), Dim::count(), s.range),
                                   s.range),
                      c == mpi::Collective::Allgather || c == mpi::Collective::Gather
                          ? "its gathered output, `ranks` x `bytes`"
                          : "its send buffer, `ranks` x `bytes`");
  else if (c != mpi::Collective::Barrier)
    check_rank_buffer(s, inputs[sizes_at], "its buffer of `bytes`");
  // Where the operation names no algorithm, an MPI library the run names chooses it, as the library would.
  mpi::NodeAware node_aware;
  mpi::Variant variant;
  std::string chosen, chosen_by;
  double library_segment = 0;  // the segment size of a library's pipeline (an Open MPI rule's seg_size)
  if (!alg_attr && choice.model != mpi::CommModel::Nccl) {
    mpi::LibraryChoice lc;
    std::string library;
    int decided = lower_library_choice(s, info, c, layout, inputs[sizes_at], lc, library);
    if (decided < 0) return false;
    if (decided > 0) {
      alg = lc.algorithm;
      node_aware = lc.node_aware;
      variant = lc.variant;
      library_segment = lc.segment;
      chosen = fmt::format("{}'s choice ({})", library, lc.why);
      chosen_by = library;
      m_.library_choices = true;
    }
  }
  // A pipeline's segment size; 0 lets the engine choose the segment count that gives the least time.
  const Attr* segment = find_attr(s.attrs, "segment");
  if (alg == mpi::Algorithm::InNetwork &&
      (choice.model != mpi::CommModel::Fabric || request.transport == mpi::Transport::Staged)) {
    const Attr* a = find_attr(s.attrs, "algorithm");
    diags_.error(DiagKind::ConflictingAttributes, a ? a->value->range : s.range,
                 fmt::format("`algorithm = in_network` reduces in the machine's switches, which only the fabric "
                             "model routes through, GPU to GPU: this `mpi {}` has the {} model{}",
                             s.name, mpi::comm_model_name(choice.model),
                             request.transport == mpi::Transport::Staged ? " and host staging" : ""));
    return false;
  }
  if (segment && choice.model == mpi::CommModel::Nccl) {
    diags_.error(DiagKind::ConflictingAttributes, segment->name_range,
                 fmt::format("`segment` sizes the segments of a pipelined {} of an MPI model; the nccl model "
                             "prices NCCL's own chunks (its protocols' and channels'), which no attribute sets",
                             s.name));
    return false;
  }
  if (segment && alg != mpi::Algorithm::Pipeline && alg != mpi::Algorithm::DoubleBinaryTree &&
      alg != mpi::Algorithm::InNetwork) {
    diags_.error(DiagKind::ConflictingAttributes, segment->name_range,
                 fmt::format("`segment` sizes the segments of a pipelined {}, not of algorithm `{}`", s.name,
                             mpi::algorithm_name(alg)));
    if (const Attr* a = find_attr(s.attrs, "algorithm"))
      diags_.note(a->value->range,
                  "the algorithm is chosen here (`pipeline`, `double_binary_tree` and `in_network` take a segment)");
    return false;
  }
  if (segment) {
    ValueId v = lower_expr(*segment->value);
    add_check(CheckKind::Positive, v, segment->value->range, fmt::format("`segment` of `mpi {}`", s.name));
    inputs.push_back(v);
  } else {
    inputs.push_back(b_.constant(library_segment, Dim::byte(), s.range));
  }
  // NCCL-style channels: rings side by side, priced on the fabric (a fitted model has no links to spread them on).
  if (const Attr* a = find_attr(s.attrs, "channels")) {
    // NCCL runs at most MAXCHANNELS = 64 channels (src/include/device.h); the fabric model's rings, 1,024.
    const bool nccl = choice.model == mpi::CommModel::Nccl;
    auto channels = mpi_count(s, "channels", 1, nccl ? mpi::kNcclMaxChannels : 1024, 1);
    if (!channels) {
      if (nccl) diags_.note(a->value->range, "NCCL runs at most 64 channels (MAXCHANNELS in its src/include/device.h)");
      return false;
    }
    if (alg != mpi::Algorithm::Ring || !on_fabric) {
      diags_.error(DiagKind::ConflictingAttributes, a->name_range,
                   fmt::format("`channels` spreads a ring over rings side by side on the machine's links: it needs "
                               "`algorithm = ring` and the fabric model, and this `mpi {}` has {} and the {} model",
                               s.name, mpi::algorithm_name(alg), mpi::comm_model_name(choice.model)));
      return false;
    }
    request.channels = *channels;
  }
  if (on_fabric) {
    request.collective = c;
    request.algorithm = alg;
    request.node_aware = node_aware;
    request.variant = variant;
    request.chosen_by = chosen_by;
    request.sizes.assign(inputs.begin() + std::ptrdiff_t(sizes_at), inputs.end());
  } else {
    engine = mpi::CommEngine::collective(choice, layout, c, alg, node_aware, variant);
    engine->set_chosen_by(chosen_by);
  }
  std::string alg_title = mpi::algorithm_title(alg, node_aware.on && mpi::has_node_aware(c), variant, c);
  library_note = chosen;
  if (choice.model == mpi::CommModel::Nccl)
    alg_title = request.nccl_algorithm >= 0 || request.nccl_protocol >= 0
                    ? fmt::format("nccl {}{}{}", request.nccl_algorithm >= 0 ? alg_word : "",
                                  request.nccl_algorithm >= 0 && request.nccl_protocol >= 0 ? "/" : "",
                                  request.nccl_protocol >= 0
                                      ? word_of(find_attr(s.attrs, "protocol")->word_param,
                                                find_attr(s.attrs, "protocol")->value->name)
                                      : "")
                    : c == mpi::Collective::Alltoall || c == mpi::Collective::Gather ||
                            c == mpi::Collective::Scatter
                        ? "nccl, grouped sends and receives"
                    : c == mpi::Collective::Barrier ? "nccl, an all-reduce of one element"
                                                    : "nccl, tuner's choice";
  title = fmt::format("mpi {} ({}, {} ranks{})", s.name, alg_title, ranks,
                      request.channels > 1 ? fmt::format(", {} channels", request.channels) : "");
  return true;
}

}  // namespace gpm::lower
