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

// The section of a machine ("section"), its network ("network") or an operation: halo, allreduce, reduce, bcast, allgather, alltoall,
// barrier. Null for an unknown operation.
const std::vector<MpiAttrSpec>* mpi_schema(std::string_view owner);
const MpiAttrSpec* find_mpi_attr(std::string_view owner, std::string_view name);
std::vector<std::string> mpi_words(const MpiAttrSpec& spec);
// The operations an app may name after `mpi`, separated by commas.
std::string mpi_operation_names();

// Settings a run may give with `--set NAME=WORD`, and their words (`comm_model`: postal|maxrate|kmodel|fabric).
const MpiAttrSpec* find_keyword_setting(std::string_view name);

}  // namespace gpm::frontend
