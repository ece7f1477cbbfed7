// lower_mpi_alltoallv.cpp: `mpi alltoallv`: its algorithm (named, or an MPI library's choice), and its `bytes`, an
// expression of the pair of ranks (`src`, `dst`) evaluated at lowering for every pair (or, over many ranks, once per
// distance `dst - src` when it reads the pair only so): lowered once with the two names standing for placeholders,
// its instructions that depend on them computed per pair with the interpreter's arithmetic (ir/semantics.h), and
// dropped afterwards.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "engines/mpi/library_choice.h"
#include "engines/mpi/mpi_engine.h"
#include "ir/semantics.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"

namespace gpm::lower {

using namespace frontend;

bool Lowerer::alltoallv_blocks(const Stmt& s, int64_t ranks, bool by_distance_ok, AlltoallvBlocks& out) {
  const Attr* a = find_attr(s.attrs, "bytes");
  if (!a || !s.pair_src || !s.pair_dst) return false;  // sema requires `bytes` and binds the pair
  // The expression once, `src` and `dst` standing for two placeholder constants; every parameter it reads shapes
  // the model (a sweep over one lowers again), as for a loop's bounds.
  const size_t mark = m_.instrs.size();
  const ValueId src = b_.constant(-0x1.7a1f5p+1000, Dim::count(), s.name_range);
  const ValueId dst = b_.constant(-0x1.7a1f5p+1001, Dim::count(), s.name_range);
  decl_values_[s.pair_src.get()] = src;
  decl_values_[s.pair_dst.get()] = dst;
  pair_src_ = src;
  pair_dst_ = dst;
  const ValueId root = lower_expr(*a->value);
  pair_src_ = pair_dst_ = kNoValue;
  decl_values_.erase(s.pair_src.get());
  decl_values_.erase(s.pair_dst.get());
  eager_value(root);
  // The instructions that depend on the pair, in order (an instruction comes after its operands).
  const size_t end = m_.instrs.size();
  std::vector<char> depends(end - mark, 0);
  std::vector<size_t> order;
  // A table's cell read at indices of the pair (lower_table.cpp) has them as its operands.
  auto operands_of = [&](size_t i) {
    const Instr& in = m_.instrs[i];
    auto cell = table_cells_.find(ValueId(i));
    return cell == table_cells_.end() ? std::array<ValueId, 3>{in.a, in.b, in.c}
                                      : std::array<ValueId, 3>{cell->second.row, cell->second.col, kNoValue};
  };
  for (size_t i = mark; i < end; ++i) {
    bool d = ValueId(i) == src || ValueId(i) == dst;
    for (ValueId x : operands_of(i)) d = d || (x >= ValueId(mark) && depends[size_t(x) - mark]);
    depends[i - mark] = d;
    if (d && ValueId(i) != src && ValueId(i) != dst) order.push_back(i);
  }
  // Those instructions compiled once: each operand a slot of `value` (an instruction that depends on the pair) or a
  // constant (the eager value of one that does not).
  struct Step {
    ir::Opcode op;
    int32_t slot;
    int32_t from[3];  // a slot, or -1: the constant imm[n]
    double imm[3];
    const TableCell* cell;  // a table's cell: its row from[0] / imm[0], its column from[1] / imm[1]
  };
  std::vector<Step> program;
  for (size_t k : order) {
    const Instr& in = m_.instrs[k];
    auto cell = table_cells_.find(ValueId(k));
    Step st{in.op, int32_t(k - mark), {-1, -1, -1}, {0, 0, 0}, cell == table_cells_.end() ? nullptr : &cell->second};
    const std::array<ValueId, 3> operands = operands_of(k);
    for (int n = 0; n < 3; ++n) {
      const ValueId x = operands[n];
      if (x >= ValueId(mark) && depends[size_t(x) - mark]) st.from[n] = int32_t(size_t(x) - mark);
      else if (x >= 0) st.imm[n] = eager_[size_t(x)];
    }
    program.push_back(st);
  }
  // Whether `bytes` reads the pair only through `dst - src` or `src - dst`: then any pair at the same distance has
  // the same block.
  bool by_distance = root != src && root != dst;
  for (size_t k : order) {
    const Instr& in = m_.instrs[k];
    const std::array<ValueId, 3> x = operands_of(k);
    const bool reads = x[0] == src || x[0] == dst || x[1] == src || x[1] == dst || x[2] == src || x[2] == dst;
    const bool difference =
        in.op == ir::Opcode::Sub && ((in.a == dst && in.b == src) || (in.a == src && in.b == dst));
    if (reads && !difference) by_distance = false;
  }
  std::string refused;
  if (ranks > kMaxAlltoallvRanks && !by_distance)
    refused = fmt::format("its `bytes` reads the pair other than as `dst - src` (or `src - dst`), so it is evaluated "
                          "for each of the ranks x ranks pairs, over at most {} ranks",
                          kMaxAlltoallvRanks);
  else if (ranks > kMaxAlltoallvRanks && !by_distance_ok)
    refused = fmt::format("the fabric and nccl models take each pair's block, over at most {} ranks (the fitted "
                          "models, postal, maxrate and kmodel, take a `bytes` of `dst - src` over any number)",
                          kMaxAlltoallvRanks);
  if (!refused.empty())
    diags_.error(DiagKind::ModelTooLarge, s.range, fmt::format("`mpi alltoallv` over {} ranks: {}", ranks, refused));
  std::vector<double> value(end - mark, 0);
  std::vector<int32_t> fault(end - mark, -1);  // the slot whose fault poisons this one, or -1
  std::vector<ir::Fault> fault_kind(end - mark, ir::Fault::None);
  bool ok = refused.empty();
  const bool pair_free = !(root >= ValueId(mark) && depends[size_t(root) - mark]);
  // The block from rank i to rank j; false after an error.
  auto block = [&](int64_t i, int64_t j, double& v) {
    int32_t poisoned = -1;
    ir::Fault kind = ir::Fault::None;
    if (pair_free) {
      v = eager_[size_t(root)];
    } else {
      value[size_t(src) - mark] = double(i);
      value[size_t(dst) - mark] = double(j);
      // The values alone first; only where some instruction faults, again with each fault traced to what it poisons.
      bool faulted = false;
      for (const Step& st : program) {
        double in[3];
        for (int n = 0; n < 3; ++n) in[n] = st.from[n] >= 0 ? value[size_t(st.from[n])] : st.imm[n];
        if (st.cell) {
          const double r = table_cell(*st.cell, in[0], in[1]);
          value[size_t(st.slot)] = r;
          faulted = faulted || std::isnan(r);
          continue;
        }
        const double r = ir::apply(st.op, in[0], in[1], in[2]);
        value[size_t(st.slot)] = r;
        faulted = faulted || ir::fault_of(st.op, in[0], in[1], r) != ir::Fault::None;
      }
      if (faulted)
        for (const Step& st : program) {
          double in[3];
          int32_t poison[3];
          for (int n = 0; n < 3; ++n) {
            in[n] = st.from[n] >= 0 ? value[size_t(st.from[n])] : st.imm[n];
            poison[n] = st.from[n] >= 0 ? fault[size_t(st.from[n])] : -1;
          }
          const double r = st.cell ? table_cell(*st.cell, in[0], in[1]) : ir::apply(st.op, in[0], in[1], in[2]);
          value[size_t(st.slot)] = r;
          if (st.cell) {  // a cell outside the table (or at an index that is not whole) is a fault of its own
            int32_t p = std::max(poison[0], poison[1]);
            fault[size_t(st.slot)] = p >= 0 ? p : std::isnan(r) ? st.slot : -1;
            fault_kind[size_t(st.slot)] = p >= 0 ? fault_kind[size_t(p)] : std::isnan(r) ? ir::Fault::Domain
                                                                                         : ir::Fault::None;
            continue;
          }
          // A fault poisons what uses it; a select passes on only its condition's and its chosen branch's.
          int32_t p = st.op == ir::Opcode::Select ? (poison[0] >= 0 ? poison[0] : poison[in[0] != 0 ? 1 : 2])
                                                  : std::max({poison[0], poison[1], poison[2]});
          ir::Fault f = p >= 0 ? fault_kind[size_t(p)] : ir::fault_of(st.op, in[0], in[1], r);
          if (p < 0 && f != ir::Fault::None) p = st.slot;
          fault[size_t(st.slot)] = p;
          fault_kind[size_t(st.slot)] = f;
        }
      v = value[size_t(root) - mark];
      if (faulted && fault[size_t(root) - mark] >= 0) {
        poisoned = int32_t(mark) + fault[size_t(root) - mark];
        kind = fault_kind[size_t(root) - mark];
      }
    }
    auto pair = [&] { return fmt::format("for the pair `src` = {}, `dst` = {}", i, j); };
    auto cell = poisoned >= 0 ? table_cells_.find(ValueId(poisoned)) : table_cells_.end();
    if (cell != table_cells_.end()) {
      // The indices again, from the values the pair gave them.
      const std::array<ValueId, 3> x = operands_of(size_t(poisoned));
      auto at = [&](ValueId v) {
        return v >= ValueId(mark) && depends[size_t(v) - mark] ? value[size_t(v) - mark] : eager_[size_t(v)];
      };
      const auto [kind, problem] = table_index_problem(cell->second, at(x[0]), at(x[1]));
      diags_.error(kind, cell->second.range, fmt::format("`bytes` of `mpi alltoallv` {}: {}", pair(), problem));
      diags_.note(cell->second.table->name_range,
                  fmt::format("table `{}` is read from `{}`", cell->second.table->name, cell->second.table->resolved));
      ok = false;
    } else if (poisoned >= 0) {
      const Instr& at = m_.instrs[size_t(poisoned)];
      diags_.error(kind == ir::Fault::DivisionByZero ? DiagKind::DivisionByZero : DiagKind::DomainError,
                   at.range.valid() ? at.range : a->value->range,
                   fmt::format("`bytes` of `mpi alltoallv` {}: {}", pair(),
                               kind == ir::Fault::DivisionByZero ? "a division by zero"
                               : at.op == ir::Opcode::Sqrt       ? "a square root of a negative number"
                               : at.op == ir::Opcode::Log2       ? "a logarithm of zero or a negative number"
                                                                 : "a result with no finite value"));
      ok = false;
    } else if (!std::isfinite(v)) {
      diags_.error(DiagKind::DomainError, a->value->range,
                   fmt::format("`bytes` of `mpi alltoallv` is {} {}; a block is a finite number of bytes", v, pair()));
      ok = false;
    } else if (v < 0) {
      diags_.error(DiagKind::NegativeValue, a->value->range,
                   fmt::format("`bytes` of `mpi alltoallv` is {} B {}; a block has zero bytes or more", v, pair()));
      ok = false;
    } else if (v != std::floor(v)) {
      diags_.error(DiagKind::NotAnInteger, a->value->range,
                   fmt::format("`bytes` of `mpi alltoallv` is {} B {}; a block is a whole number of bytes", v, pair()));
      ok = false;
    }
    return ok;
  };
  if (ok && ranks <= kMaxAlltoallvRanks) {
    out.matrix.assign(size_t(ranks * ranks), 0);
    for (int64_t i = 0; i < ranks && ok; ++i)
      for (int64_t j = 0; j < ranks && ok; ++j)
        if (i != j) ok = block(i, j, out.matrix[size_t(i * ranks + j)]);  // a rank's block to itself is not sent
  } else if (ok) {
    // One pair at each distance d = dst - src: (0, d), or (-d, 0).
    out.by_distance.assign(size_t(2 * ranks - 1), 0);
    for (int64_t d = 1 - ranks; d < ranks && ok; ++d)
      if (d != 0) ok = block(d > 0 ? 0 : -d, d > 0 ? d : 0, out.by_distance[size_t(d + ranks - 1)]);
  }
  // The pair's instructions were for this evaluation only: nothing kept uses them.
  b_.truncate(mark);
  table_cells_.erase(table_cells_.lower_bound(ValueId(mark)), table_cells_.end());
  eager_.resize(std::min(eager_.size(), mark));
  shape_seen_.resize(std::min(shape_seen_.size(), mark));
  for (auto it = inlined_.begin(); it != inlined_.end();) {
    bool dropped = it->second >= ValueId(mark);
    for (ValueId x : it->first.second) dropped = dropped || x >= ValueId(mark);
    it = dropped ? inlined_.erase(it) : std::next(it);
  }
  return ok;
}

bool Lowerer::lower_alltoallv(const Stmt& s, const MpiMachineInfo& info, const mpi::Choice& choice,
                              const mpi::Layout& layout, bool on_fabric, std::vector<ValueId>& inputs,
                              MpiFabricRequest& request, std::shared_ptr<mpi::CommEngine>& engine, std::string& title,
                              std::string& library_note) {
  mpi::Algorithm alg = mpi::Algorithm::Pairwise;
  std::string chosen_by;
  const Attr* named = find_attr(s.attrs, "algorithm");
  const std::string word = named ? word_of(named->word_param, named->value->name) : "auto";
  // The nccl model's protocol and launch (NCCL's grouped sends and receives); elsewhere they are refused or noted.
  const bool nccl = choice.model == mpi::CommModel::Nccl;
  if (!lower_nccl_choice(s, choice.model, word != "auto" ? named : nullptr, word, request)) return false;
  if (nccl) {
    request.collective = mpi::Collective::Alltoall;
  } else if (word != "auto") {
    alg = word == "scattered" ? mpi::Algorithm::Scattered : mpi::Algorithm::Pairwise;
  } else {
    const TypeDecl* lib = nullptr;
    if (mpi_library_of(info, lib) < 0 || !openmpi_rules_fit_library(s, lib)) return false;
    if (lib && lib->component_kind == "openmpi_library") {
      // Open MPI's tuned component decides an alltoallv by the rank count alone (coll_tuned_decision_fixed.c), or
      // the user's rules file by the rank count.
      std::string why, released;
      int64_t released_at = -1;
      alg = mpi::openmpi_alltoallv_choice(layout.ranks, openmpi_rules_, layout, why, released, released_at);
      warn_released_rule(s, layout.ranks, released, released_at, lib->name);
      chosen_by = lib->name;
      library_note = fmt::format("{}'s choice ({})", lib->name, why);
      m_.library_choices = true;
    } else if (lib) {
      // MPICH runs MPIR_Alltoallv_intra_scattered for every alltoallv whose send buffer is not MPI_IN_PLACE
      // (maint/tuning/coll/mpir/generic.json), whatever the sizes.
      alg = mpi::Algorithm::Scattered;
      chosen_by = lib->name;
      library_note = fmt::format("{}'s choice (scattered, for every alltoallv)", lib->name);
      m_.library_choices = true;
    }
  }
  const int64_t p = layout.ranks;
  AlltoallvBlocks blocks;
  if (!alltoallv_blocks(s, p, !on_fabric, blocks)) return false;
  // A rank's buffers: what it sends (its row) and what it receives (its column), and the largest block.
  double largest = 0, block = 0;
  if (!blocks.matrix.empty()) {
    const std::vector<double>& matrix = blocks.matrix;
    for (int64_t i = 0; i < p; ++i) {
      double row = 0, column = 0;
      for (int64_t j = 0; j < p; ++j) {
        row += matrix[size_t(i * p + j)];
        column += matrix[size_t(j * p + i)];
        block = std::max(block, matrix[size_t(i * p + j)]);
      }
      largest = std::max({largest, row, column});
    }
  } else {
    // By distance: rank r sends the blocks of distances -r .. p - 1 - r and receives those of r - (p - 1) .. r;
    // sums of whole numbers of bytes, exact in a double.
    const std::vector<double>& g = blocks.by_distance;
    std::vector<double> sum(g.size() + 1, 0);  // sum[k]: the blocks of distance indices below k
    for (size_t k = 0; k < g.size(); ++k) {
      sum[k + 1] = sum[k] + g[k];
      block = std::max(block, g[k]);
    }
    for (int64_t r = 0; r < p; ++r) {
      const double row = sum[size_t(2 * p - 1 - r)] - sum[size_t(p - 1 - r)];
      const double column = sum[size_t(p + r)] - sum[size_t(r)];
      largest = std::max({largest, row, column});
    }
  }
  check_rank_buffer(s, b_.constant(largest, Dim::byte(), s.range), "its largest send or receive buffer");
  const size_t sizes_at = inputs.size();
  inputs.push_back(b_.constant(block, Dim::byte(), s.range));  // the largest block (the engines read the blocks)
  inputs.push_back(b_.constant(0, Dim::byte(), s.range));      // no segments
  if (on_fabric) {  // the fabric and nccl models
    request.alltoallv = true;
    request.algorithm = alg;
    request.chosen_by = chosen_by;
    request.matrix = std::move(blocks.matrix);
    request.sizes.assign(inputs.begin() + std::ptrdiff_t(sizes_at), inputs.end());
  } else if (!blocks.matrix.empty()) {
    engine = mpi::CommEngine::alltoallv(choice, layout, alg, mpi::alltoallv_rounds(layout, blocks.matrix, alg, false));
    engine->set_chosen_by(chosen_by);
  } else {
    std::string why;
    std::optional<mpi::Round> round = mpi::alltoallv_distance_round(layout, blocks.by_distance, why);
    if (!round) {
      diags_.error(DiagKind::ModelTooLarge, s.range,
                   fmt::format("`mpi alltoallv` over {} ranks: {}; gpmc takes the blocks pair by pair over at most {} "
                               "ranks",
                               p, why, kMaxAlltoallvRanks));
      return false;
    }
    std::vector<mpi::Round> rounds;
    rounds.push_back(std::move(*round));
    engine = mpi::CommEngine::alltoallv(choice, layout, alg, std::move(rounds));
    engine->set_chosen_by(chosen_by);
  }
  const Attr* protocol = find_attr(s.attrs, "protocol");
  title = !nccl      ? fmt::format("mpi alltoallv ({}, {} ranks)", mpi::algorithm_name(alg), p)
          : protocol ? fmt::format("mpi alltoallv (nccl {}, {} ranks)",
                                   word_of(protocol->word_param, protocol->value->name), p)
                     : fmt::format("mpi alltoallv (nccl, grouped sends and receives, {} ranks)", p);
  return true;
}

}  // namespace gpm::lower
