// lower_mpi_alltoallv.cpp: `mpi alltoallv`: its algorithm (named, or an MPI library's choice), and its `bytes`, an
// expression of the pair of ranks (`src`, `dst`) evaluated at lowering for every pair: lowered once with the two names
// standing for placeholders, its instructions that depend on them computed per pair with the interpreter's
// arithmetic (ir/semantics.h), and dropped afterwards.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engines/mpi/library_choice.h"
#include "engines/mpi/mpi_engine.h"
#include "ir/semantics.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"

namespace gpm::lower {

using namespace frontend;

std::vector<double> Lowerer::alltoallv_bytes(const Stmt& s, int64_t ranks) {
  const Attr* a = find_attr(s.attrs, "bytes");
  if (!a || !s.pair_src || !s.pair_dst) return {};  // sema requires `bytes` and binds the pair
  if (ranks > kMaxAlltoallvRanks) {
    diags_.error(DiagKind::ModelTooLarge, s.range,
                 fmt::format("`mpi alltoallv` over {} ranks: its `bytes` is evaluated for each of the ranks x ranks "
                             "pairs, and gpmc evaluates it over at most {} ranks",
                             ranks, kMaxAlltoallvRanks));
    return {};
  }
  // The expression once, `src` and `dst` standing for two placeholder constants; every parameter it reads shapes
  // the model (a sweep over one lowers again), as for a loop's bounds.
  const size_t mark = m_.instrs.size();
  const ValueId src = b_.constant(-0x1.7a1f5p+1000, Dim::count(), s.name_range);
  const ValueId dst = b_.constant(-0x1.7a1f5p+1001, Dim::count(), s.name_range);
  decl_values_[s.pair_src.get()] = src;
  decl_values_[s.pair_dst.get()] = dst;
  const ValueId root = lower_expr(*a->value);
  decl_values_.erase(s.pair_src.get());
  decl_values_.erase(s.pair_dst.get());
  eager_value(root);
  // The instructions that depend on the pair, in order (an instruction comes after its operands).
  const size_t end = m_.instrs.size();
  std::vector<char> depends(end - mark, 0);
  std::vector<size_t> order;
  for (size_t i = mark; i < end; ++i) {
    const Instr& in = m_.instrs[i];
    bool d = ValueId(i) == src || ValueId(i) == dst;
    for (ValueId x : {in.a, in.b, in.c}) d = d || (x >= ValueId(mark) && depends[size_t(x) - mark]);
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
  };
  std::vector<Step> program;
  for (size_t k : order) {
    const Instr& in = m_.instrs[k];
    Step st{in.op, int32_t(k - mark), {-1, -1, -1}, {0, 0, 0}};
    const ValueId operands[3] = {in.a, in.b, in.c};
    for (int n = 0; n < 3; ++n) {
      const ValueId x = operands[n];
      if (x >= ValueId(mark) && depends[size_t(x) - mark]) st.from[n] = int32_t(size_t(x) - mark);
      else if (x >= 0) st.imm[n] = eager_[size_t(x)];
    }
    program.push_back(st);
  }
  std::vector<double> bytes(size_t(ranks * ranks), 0);
  std::vector<double> value(end - mark, 0);
  std::vector<int32_t> fault(end - mark, -1);  // the slot whose fault poisons this one, or -1
  std::vector<ir::Fault> fault_kind(end - mark, ir::Fault::None);
  bool ok = true;
  const bool pair_free = !(root >= ValueId(mark) && depends[size_t(root) - mark]);
  for (int64_t i = 0; i < ranks && ok; ++i)
    for (int64_t j = 0; j < ranks && ok; ++j) {
      if (i == j) continue;  // a rank's block to itself is not sent
      double v;
      int32_t poisoned = -1;
      ir::Fault kind = ir::Fault::None;
      if (pair_free) {
        v = eager_[size_t(root)];
      } else {
        value[size_t(src) - mark] = double(i);
        value[size_t(dst) - mark] = double(j);
        for (const Step& st : program) {
          double in[3];
          int32_t poison[3];
          for (int n = 0; n < 3; ++n) {
            in[n] = st.from[n] >= 0 ? value[size_t(st.from[n])] : st.imm[n];
            poison[n] = st.from[n] >= 0 ? fault[size_t(st.from[n])] : -1;
          }
          const double r = ir::apply(st.op, in[0], in[1], in[2]);
          value[size_t(st.slot)] = r;
          // A fault poisons what uses it; a select passes on only its condition's and its chosen branch's.
          int32_t p = st.op == ir::Opcode::Select ? (poison[0] >= 0 ? poison[0] : poison[in[0] != 0 ? 1 : 2])
                                                  : std::max({poison[0], poison[1], poison[2]});
          ir::Fault f = p >= 0 ? fault_kind[size_t(p)] : ir::fault_of(st.op, in[0], in[1], r);
          if (p < 0 && f != ir::Fault::None) p = st.slot;
          fault[size_t(st.slot)] = p;
          fault_kind[size_t(st.slot)] = f;
        }
        v = value[size_t(root) - mark];
        if (fault[size_t(root) - mark] >= 0) {
          poisoned = int32_t(mark) + fault[size_t(root) - mark];
          kind = fault_kind[size_t(root) - mark];
        }
      }
      auto pair = [&] { return fmt::format("for the pair `src` = {}, `dst` = {}", i, j); };
      if (poisoned >= 0) {
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
      bytes[size_t(i * ranks + j)] = v;
    }
  // The pair's instructions were for this evaluation only: nothing kept uses them.
  b_.truncate(mark);
  eager_.resize(std::min(eager_.size(), mark));
  shape_seen_.resize(std::min(shape_seen_.size(), mark));
  for (auto it = inlined_.begin(); it != inlined_.end();) {
    bool dropped = it->second >= ValueId(mark);
    for (ValueId x : it->first.second) dropped = dropped || x >= ValueId(mark);
    it = dropped ? inlined_.erase(it) : std::next(it);
  }
  if (!ok) return {};
  return bytes;
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
      std::string why;
      alg = mpi::openmpi_alltoallv_choice(layout.ranks, openmpi_rules_, layout, why);
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
  std::vector<double> matrix = alltoallv_bytes(s, p);
  if (matrix.empty()) return false;
  // A rank's buffers: what it sends (its row) and what it receives (its column).
  double largest = 0, block = 0;
  for (int64_t i = 0; i < p; ++i) {
    double row = 0, column = 0;
    for (int64_t j = 0; j < p; ++j) {
      row += matrix[size_t(i * p + j)];
      column += matrix[size_t(j * p + i)];
      block = std::max(block, matrix[size_t(i * p + j)]);
    }
    largest = std::max({largest, row, column});
  }
  check_rank_buffer(s, b_.constant(largest, Dim::byte(), s.range), "its largest send or receive buffer");
  const size_t sizes_at = inputs.size();
  inputs.push_back(b_.constant(block, Dim::byte(), s.range));  // the largest block (the engines read the matrix)
  inputs.push_back(b_.constant(0, Dim::byte(), s.range));      // no segments
  if (on_fabric) {  // the fabric and nccl models
    request.alltoallv = true;
    request.algorithm = alg;
    request.chosen_by = chosen_by;
    request.matrix = std::move(matrix);
    request.sizes.assign(inputs.begin() + std::ptrdiff_t(sizes_at), inputs.end());
  } else {
    engine = mpi::CommEngine::alltoallv(choice, layout, alg, mpi::alltoallv_rounds(layout, matrix, alg, false));
    engine->set_chosen_by(chosen_by);
  }
  const Attr* protocol = find_attr(s.attrs, "protocol");
  title = !nccl      ? fmt::format("mpi alltoallv ({}, {} ranks)", mpi::algorithm_name(alg), p)
          : protocol ? fmt::format("mpi alltoallv (nccl {}, {} ranks)",
                                   word_of(protocol->word_param, protocol->value->name), p)
                     : fmt::format("mpi alltoallv (nccl, tuner's choice, {} ranks)", p);
  return true;
}

}  // namespace gpm::lower
