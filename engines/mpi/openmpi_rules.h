// openmpi_rules.h: a user's Open MPI dynamic rules file (the `tuned` component's JSON rules,
// docs/tuning-apps/tuned_dynamic_file_schema.json of Open MPI, rule_file_version 3, or the classic format of
// numbers that every released Open MPI reads): for each collective, rules by communicator size, each a list of rules
// by message size naming an algorithm. gpmc reads it with `--mpi-rules FILE`; a collective it covers runs the rule's
// algorithm instead of the fixed decision's.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/mpi/pattern.h"

namespace gpm::mpi {

constexpr int64_t kRuleInf = std::numeric_limits<int64_t>::max();

// One rule by message size: Open MPI's algorithm number (0: "ignore", the fixed decision decides) and its
// parameters. `at` is the byte offset of the rule in the file (for diagnostics).
struct OpenmpiMsgRule {
  int64_t min = 0, max = kRuleInf;
  int alg = 0;
  int64_t faninout = 0, segsize = 0, reqs = 0;
  uint32_t at = 0;
};

// Rules for a range of communicator sizes; `distribution` as the file's comm_rank_distribution.
struct OpenmpiCommRule {
  enum class Distribution { Any, OnePerNode, SingleNode } distribution = Distribution::Any;
  int64_t min = 0, max = kRuleInf;
  std::vector<OpenmpiMsgRule> rules;
  int64_t declared = -1;  // the classic format: the communicator size the file gives (min and max derive from it)
  uint32_t at = 0;        // the classic format: where that size is
};

struct OpenmpiRules {
  bool classic = false;  // read from the classic format (openmpi_rules_classic.cpp)
  std::map<std::string, std::vector<OpenmpiCommRule>, std::less<>> collectives;  // by Open MPI's collective name
};

// Open MPI's name of a collective in a rules file ("allreduce", "reducescatter", ...).
const char* openmpi_collective_name(Collective c);
// Open MPI's names of the algorithms of `collective` (a rules file's collective name), index = number; empty for a
// collective gpmc has no operation for.
const std::vector<std::string>& openmpi_algorithm_names(std::string_view collective);

// Parses a rules file: JSON where its first character (after blanks) is `{`, `[` or `"`, else the classic format
// (parse_openmpi_rules_classic), as Open MPI tries JSON and then the classic reader. On failure: nullopt, `error` the message and `error_at` the byte offset it concerns.
std::optional<OpenmpiRules> parse_openmpi_rules(std::string_view text, std::string& error, uint32_t& error_at);

// The rule for `collective` over the ranks of `layout` and `bytes` (the first matching communicator rule, then its
// first matching message rule), or null: no rule, and the fixed decision decides.
const OpenmpiMsgRule* find_openmpi_rule(const OpenmpiRules& rules, std::string_view collective, const Layout& layout,
                                        double bytes);

// The classic format (openmpi_rules_classic.cpp), its sizes turned into ranges as Open MPI's main branch reads them.
std::optional<OpenmpiRules> parse_openmpi_rules_classic(std::string_view text, std::string& error, uint32_t& error_at);
// The rule Open MPI 5.0 and earlier take for the same operation from a classic file (the last communicator size at
// most the ranks, the first when all are larger), or find_openmpi_rule's for a JSON file.
const OpenmpiMsgRule* find_openmpi_rule_released(const OpenmpiRules& rules, std::string_view collective,
                                                 const Layout& layout, double bytes);

}  // namespace gpm::mpi
