// lower_mpi_library.cpp: an MPI library's choice of a collective's algorithm at lowering: the `mpi_library` type the
// run names (`--set mpi_library=...`, or the machine's mpi section), its thresholds, and the operation's bytes and
// element size (engines/mpi/library_choice.h applies the library's rules).
#include <fmt/format.h>

#include <cmath>

#include "engines/mpi/library_choice.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"

namespace gpm::lower {

using namespace frontend;

int Lowerer::mpi_library_of(const MpiMachineInfo& info, const TypeDecl*& lib) {
  // The run's setting first (`none` turns the machine's library off), then the machine's section.
  lib = info.mpi_library;
  if (auto it = keywords_.find("mpi_library"); it != keywords_.end()) {
    lib = nullptr;
    if (it->second != "none") {
      auto found = program_.globals.find(it->second);
      if (found != program_.globals.end() && found->second->kind == DeclKind::Type &&
          (static_cast<const TypeDecl*>(found->second)->component_kind == "mpi_library" ||
           static_cast<const TypeDecl*>(found->second)->component_kind == "openmpi_library"))
        lib = static_cast<const TypeDecl*>(found->second);
      if (!lib) {
        diags_.error(DiagKind::UnknownType, {},
                     fmt::format("--set mpi_library={}: no `mpi_library` or `openmpi_library` type of that name is "
                                 "loaded",
                                 it->second));
        return -1;
      }
    }
  }
  return lib ? 1 : 0;
}

bool Lowerer::openmpi_rules_fit_library(const Stmt& s, const TypeDecl* lib) {
  if (!openmpi_rules_ || (lib && lib->component_kind == "openmpi_library")) return true;
  if (openmpi_rules_refused_) return false;  // said once, at the first collective
  openmpi_rules_refused_ = true;
  diags_.error(DiagKind::ConflictingAttributes, s.range,
               fmt::format("`mpi {}`: --mpi-rules gives Open MPI's rules, and this run's MPI library is {}: name Open "
                           "MPI's (`--set mpi_library=openmpi`, or `mpi_library = openmpi` in the machine's mpi "
                           "section)",
                           s.name, lib ? fmt::format("`{}`", lib->name) : "none"));
  return false;
}

void Lowerer::note_openmpi_rule(int64_t at) {
  if (at >= 0 && openmpi_rules_file_ != support::kNoFile)
    diags_.note({openmpi_rules_file_, uint32_t(at), uint32_t(at) + 1}, "the rule that chose it");
}

// A classic rules file whose communicator sizes Open MPI 5.0 and earlier read otherwise (openmpi_rules_classic.cpp):
// this run reads it as Open MPI's main branch does, and says what the released versions would run.
void Lowerer::warn_released_rule(const Stmt& s, int64_t ranks, const std::string& released, int64_t at,
                                 const std::string& library) {
  if (released.empty()) return;
  diags_.warning(DiagKind::AssumedValue, s.range,
                 fmt::format("`mpi {}` over {} ranks: {} reads the classic rules file as Open MPI's main branch does "
                             "(a communicator size ends its rule's range); Open MPI 5.0 and earlier take the rule of "
                             "the largest communicator size at most the ranks, and would run {} here",
                             s.name, ranks, library, released));
  if (at >= 0 && openmpi_rules_file_ != support::kNoFile)
    diags_.note({openmpi_rules_file_, uint32_t(at), uint32_t(at) + 1}, "the rule Open MPI 5.0 and earlier would take");
}

// Open MPI 5.0 and later select their `han` component (ompi/mca/coll/han/coll_han_component.c: priority 35, above
// tuned's 30; Open MPI 4.1 registered it at 0, off) on every communicator with processes on other nodes
// (coll_han_module.c, mca_coll_han_comm_query), for allgather, allreduce, barrier, bcast, gather, reduce and scatter;
// at the whole communicator its dynamic rules run HAN's own hierarchical algorithms (mca_sub_components
// [GLOBAL_COMMUNICATOR] = HAN), tuned only inside them. Allgather, bcast, gather, reduce and scatter fall back to the
// component below (tuned) where the nodes hold different numbers of ranks (`are_ppn_imbalanced`); allreduce and
// barrier do not. gpmc prices tuned's choice: said once, at the first such operation.
void Lowerer::warn_openmpi_han(const Stmt& s, mpi::Collective c, const mpi::Layout& layout, const std::string& name) {
  using mpi::Collective;
  if (han_warned_ || layout.nodes < 2 || layout.node.size() != size_t(layout.ranks)) return;
  if (c == Collective::Alltoall || c == Collective::ReduceScatter) return;  // HAN leaves these to tuned
  std::vector<int64_t> per_node(size_t(layout.nodes), 0);
  for (int32_t node : layout.node) per_node[size_t(node)] += 1;
  int64_t used = 0, first = -1;
  bool balanced = true;
  for (int64_t k : per_node) {
    if (k == 0) continue;
    ++used;
    if (first < 0) first = k;
    balanced = balanced && k == first;
  }
  if (used < 2) return;  // every rank on one node: HAN disqualifies itself
  if (!balanced && c != Collective::Allreduce && c != Collective::Barrier) return;
  han_warned_ = true;
  diags_.warning(DiagKind::ModelSubstituted, s.range,
                 fmt::format("`mpi {}` over {} nodes: `{}` prices Open MPI's `tuned` component's choice, which Open MPI "
                             "4.1 and earlier run (and 5.x with `--mca coll_han_priority 0`); Open MPI 5.0 and later "
                             "run allgather, allreduce, barrier, bcast, gather, reduce and scatter on ranks of several "
                             "nodes with their `han` component (priority 35 over tuned's 30: intra-node and inter-node "
                             "steps composed), which gpmc does not model; the same holds for every such operation of "
                             "this run",
                             s.name, used, name));
}

int Lowerer::lower_library_choice(const Stmt& s, const MpiMachineInfo& info, mpi::Collective c,
                                  const mpi::Layout& layout, ValueId bytes, mpi::LibraryChoice& out,
                                  std::string& library) {
  const TypeDecl* lib = nullptr;
  const int found = mpi_library_of(info, lib);
  if (found < 0) return found;
  if (!openmpi_rules_fit_library(s, lib)) return -1;
  if (found == 0) return 0;
  library = lib->name;
  const bool openmpi = lib->component_kind == "openmpi_library";
  // The library's thresholds, in the order the choice reads them (sema requires every one; a guard for hand-built
  // programs). They decide the shape of the operation, so each is a constant of the model.
  std::vector<double> values;
  for (const auto& name : openmpi ? mpi::openmpi_library_attributes() : mpi::mpi_library_attributes()) {
    const Attr* a = nullptr;
    for (const auto& attr : lib->attrs)
      if (attr.name == name) a = &attr;
    if (!a) {
      diags_.error(DiagKind::MissingAttribute, lib->name_range,
                   fmt::format("{} `{}` lacks `{}`", lib->component_kind, lib->name, name));
      return -1;
    }
    double v = eager_value(lower_expr(*a->value));
    // A tree's children per rank is a whole number from 1 (1: a chain), a chain count too, a k-nomial radix from 2;
    // the other thresholds are sizes or counts.
    const bool children = name.find("_k") != std::string::npos || name.find("chains") != std::string::npos;
    const bool radix = name.find("radix") != std::string::npos;
    const double least = radix ? 2 : children ? 1 : 0;
    if (!std::isfinite(v) || v < least || ((children || radix) && (v != std::floor(v) || v > 1e6))) {
      diags_.error(DiagKind::InvalidAttributeValue, a->value->range,
                   radix      ? fmt::format("`{}` of {} `{}` is {:g}; a k-nomial tree's radix is a whole number from "
                                            "2 to 1e6",
                                            name, lib->component_kind, lib->name, v)
                   : children ? fmt::format("`{}` of {} `{}` is {:g}; {} is a whole number from 1 to 1e6", name,
                                            lib->component_kind, lib->name, v,
                                            name.find("chains") != std::string::npos ? "a count of chains"
                                                                                     : "a tree's children per rank")
                              : fmt::format("`{}` of {} `{}` is {:g}; it must be a finite value of at least zero", name,
                                            lib->component_kind, lib->name, v));
      return -1;
    }
    values.push_back(v);
  }
  // The operation's bytes and element size decide the algorithm: both become shape parameters.
  const double n = eager_value(bytes);
  double element = 8;
  const Attr* element_attr = find_attr(s.attrs, "element");
  if (element_attr) {
    element = eager_value(lower_expr(*element_attr->value));
    if (!std::isfinite(element) || element <= 0) {
      diags_.error(DiagKind::NonPositiveValue, element_attr->value->range,
                   fmt::format("`element` of `mpi {}` is {} B; an element has at least one byte", s.name, element));
      return -1;
    }
  }
  if (!std::isfinite(n) || n < 0) return -1;  // the operation's checks report it
  if (openmpi) {
    // Open MPI decides by bytes alone (its total_dsize), whatever the element size.
    out = mpi::openmpi_choice(values, c, layout, n, openmpi_rules_);
    warn_released_rule(s, layout.ranks, out.released, out.released_rule_at, lib->name);
    warn_openmpi_han(s, c, layout, lib->name);
    if (!out.unmodelled.empty()) {
      diags_.error(DiagKind::UnsupportedRule, s.range,
                   fmt::format("`mpi {}` of {:g} B over {} ranks: {}'s choice is {}: {}", s.name, n, layout.ranks,
                               lib->name, out.why, out.unmodelled));
      note_openmpi_rule(out.rule_at);
      return -1;
    }
    if (c == mpi::Collective::Bcast && out.algorithm == mpi::Algorithm::ScatterDoublingAllgather &&
        std::floor(n / element) < double(layout.ranks)) {
      // ompi_coll_base_bcast_intra_scatter_allgather: fewer elements than ranks run the basic linear bcast.
      out.algorithm = mpi::Algorithm::Linear;
      out.why += fmt::format(", and with {:g} elements for {} ranks Open MPI's basic linear bcast",
                             std::floor(n / element), layout.ranks);
      if (!element_attr)
        diags_.warning(DiagKind::AssumedValue, s.range,
                       fmt::format("`mpi {}` of {:g} B: {}'s choice (linear) depends on how many elements the buffer "
                                   "holds, counted here as 8-byte elements (MPI_DOUBLE); give `element = 4 B` (or the "
                                   "datatype's size) if they are not",
                                   s.name, n, lib->name));
    }
    if (out.segment > 0) {
      // A rule's seg_size as Open MPI counts it (COLL_BASE_COMPUTED_SEGCOUNT, coll_base_functions.h): whole
      // elements, a remainder over half an element rounding up; below one element, or the whole buffer or more,
      // the whole buffer.
      const double asked = out.segment, count = std::floor(n / element);
      const bool cut = asked >= element && asked < element * count;
      double elements = count;
      if (cut) {
        elements = std::floor(asked / element);
        if (asked - elements * element > std::floor(element / 2)) elements += 1;
      }
      const double p = double(layout.ranks);
      if (out.algorithm == mpi::Algorithm::Ring) {
        // The segmented ring all-reduce (ompi_coll_base_allreduce_intra_ring_segmented): fewer elements than ranks
        // x segment run the plain ring; else count / (ranks x segment) phases, one more for a remainder of at least
        // `ranks` elements and over half of ranks x segment.
        out.segment = 0;
        if (elements < 1 || count < p * elements) {
          out.why += ", fewer elements than ranks x segment, so the plain ring";
        } else {
          const double whole = p * elements, rest = count - std::floor(count / whole) * whole;
          int64_t phases = int64_t(std::floor(count / whole));
          if (rest >= p && rest > std::floor(whole / 2)) phases += 1;
          out.variant.ring_phases = phases;
          out.why += fmt::format(", segments of {:g} B: {} phases", elements * element, phases);
        }
      } else if (out.algorithm == mpi::Algorithm::LinearSync) {
        // ompi_coll_base_gather_intra_linear_sync: the first segment in whole elements (a block of fewer, the whole
        // block, the rest then of 0 B).
        out.segment = 0;
        const double first = cut ? elements * element : n;
        out.variant.first_segment = n > 0 ? first / n : 0;
        out.why += fmt::format(", first segments of {:g} B, then the rest of {:g} B", first, n - first);
      } else if (out.segment_floor) {
        // ompi_coll_base_bcast_intra_split_bintree counts its own: seg_size / element size, at least one element.
        out.segment = std::max(1.0, std::floor(asked / element)) * element;
        out.why += fmt::format(", segments of {:g} B", out.segment);
      } else if (cut) {
        out.segment = elements * element;
        out.why += fmt::format(", segments of {:g} B", out.segment);
      } else {
        out.segment = std::max(n, element);
        out.why += ", one segment";
      }
      if (!element_attr && std::fmod(asked, element) != 0 && cut)
        diags_.warning(DiagKind::AssumedValue, s.range,
                       fmt::format("`mpi {}`: {} cuts the rule's seg_size of {:g} B into whole elements, counted here "
                                   "as 8-byte elements (MPI_DOUBLE): segments of {:g} B; give `element = 4 B` (or the "
                                   "datatype's size) if they are not",
                                   s.name, lib->name, asked, elements * element));
    }
    return 1;
  }
  out = mpi::mpich_choice(values, c, layout, n, element);
  if (out.counted && !element_attr)
    diags_.warning(DiagKind::AssumedValue, s.range,
                   fmt::format("`mpi {}` of {:g} B: {}'s choice ({}) depends on how many elements the buffer holds, "
                               "counted here as 8-byte elements (MPI_DOUBLE); give `element = 4 B` (or the datatype's "
                               "size) if they are not",
                               s.name, n, lib->name, mpi::algorithm_title(out.algorithm, out.node_aware.on)));
  return 1;
}

}  // namespace gpm::lower
