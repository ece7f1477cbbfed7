// mpi_schema.h: the attributes of a machine's `mpi` section and of the app's `mpi` operations, and their keywords.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "support/units.h"

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

struct MpiAttrSpec {
  enum class Kind { Quantity, Truth, Keyword } kind;
  const char* name;
  Dim dim;               // Quantity
  const char* keywords;  // Keyword: the allowed words, separated by `|`; `block` and `explicit` take arguments
  const char* meaning;
};

// The section of a machine ("section"), its network ("network"), its cluster ("cluster") or an operation: halo,
// send, recv, sendrecv, allreduce, reduce, bcast, allgather, alltoall, alltoallv, reduce_scatter, barrier, gather, scatter.
// Null for an unknown operation.
const std::vector<MpiAttrSpec>* mpi_schema(std::string_view owner);
const MpiAttrSpec* find_mpi_attr(std::string_view owner, std::string_view name);
std::vector<std::string> mpi_words(const MpiAttrSpec& spec);
// The operations an app may name after `mpi`, separated by commas.
std::string mpi_operation_names();
// A cluster section's attributes for its topology (`fat_tree`, `rail` or `dragonfly`): those it needs and lacks, and
// those it has that belong to the other kind of network (a tree's spines on a dragonfly, a dragonfly's routers on a
// tree). `present` lists the section's attribute names.
struct ClusterAttrCheck {
  std::vector<std::string> missing, foreign;
};
ClusterAttrCheck check_cluster_attrs(const std::vector<std::string>& present, std::string_view topology);

// Settings a run may give with `--set NAME=WORD`, and their words (`comm_model`: postal|maxrate|kmodel|fabric).
const MpiAttrSpec* find_keyword_setting(std::string_view name);

}  // namespace gpm::frontend
