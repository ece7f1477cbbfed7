// openmpi_rules_classic.cpp: Open MPI's classic dynamic rules format (whole numbers and `#` comments, read by
// ompi_coll_tuned_read_rules_config_file_classic in coll_tuned_dynamic_file.c), and the rule that Open MPI 5.0 and
// earlier take from such a file, whose communicator sizes they read otherwise than Open MPI's main branch does.
//
// The format, as Open MPI reads it: an optional `rule-file-version-N` at the very start (2 and later allow a
// request limit after a rule's segment size, on the same line); the number of collectives; then for each a
// collective id (Open MPI's COLLTYPE numbering, coll_base_functions.h: 0 allgather ... 21 neighbor_alltoallw), the
// number of communicator sizes, and for each a communicator size, the number of message sizes and for each
// `message size, algorithm, fan-in/out, segment size [, requests]`. The first message size of each list is 0.
//
// Open MPI's main branch turns the sizes into ranges (the same file, the same reading as its JSON converter,
// contrib/coll_tuned_rulefile_converter.py): communicator rule k holds sizes from the previous rule's bound up to
// its own size - 1, the last every larger size too; message rule k holds sizes from its own size up to the next
// rule's - 1. Open MPI 5.0 and earlier (coll_tuned_dynamic_rules.c, ompi_coll_tuned_get_com_rule_ptr) take the last
// communicator rule whose size is at most the communicator's (the first when all are larger), and the message rule
// the same way, which the ranges give too.
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "engines/mpi/openmpi_rules.h"

namespace gpm::mpi {

namespace {

// Open MPI's COLLTYPE numbering (coll_base_functions.h), the names a JSON rules file uses.
const char* const kCollectiveIds[] = {
    "allgather",     "allgatherv", "allreduce",          "alltoall",          "alltoallv",          "alltoallw",
    "barrier",       "bcast",      "exscan",             "gather",            "gatherv",            "reduce",
    "reducescatter", "reducescatterblock", "scan",       "scatter",           "scatterv",           "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};
constexpr int64_t kCollectiveCount = int64_t(sizeof(kCollectiveIds) / sizeof(kCollectiveIds[0]));

constexpr std::string_view kVersionWord = "rule-file-version-";

struct Failure {
  std::string message;
  uint32_t at;
};

// The file's numbers in order, comments and blanks skipped; each number's place, for errors and notes.
class Numbers {
 public:
  explicit Numbers(std::string_view text) : t_(text) {}

  // The version header, read only at the first byte as Open MPI's fscanf reads it; 1 without one.
  int version() {
    if (t_.substr(0, kVersionWord.size()) != kVersionWord) return 1;
    i_ = kVersionWord.size();
    const size_t start = i_;
    while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
    if (i_ == start || i_ - start > 6) fail(uint32_t(start), "the version header is `rule-file-version-` and a number");
    return std::atoi(std::string(t_.substr(start, i_ - start)).c_str());
  }

  // The next number, `what` naming it for the errors.
  int64_t next(const std::string& what) {
    skip(true);
    if (i_ >= t_.size())
      fail(uint32_t(t_.size()), fmt::format("the file ends where Open MPI reads {}", what));
    return number(what);
  }

  // Whether a number follows on the same line (Open MPI's peek skips blanks and tabs, not line ends).
  bool number_on_this_line() {
    skip(false);
    return i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9';
  }

  // The place of the last number read.
  uint32_t last() const { return last_; }

  // Anything left but blanks and comments.
  bool at_end() {
    skip(true);
    return i_ >= t_.size();
  }
  uint32_t here() const { return uint32_t(i_); }

  [[noreturn]] static void fail(uint32_t at, std::string message) { throw Failure{std::move(message), at}; }

 private:
  void skip(bool lines) {
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || (lines && c == '\n')) {
        ++i_;
      } else {
        return;
      }
    }
  }

  int64_t number(const std::string& what) {
    const size_t start = i_;
    while (i_ < t_.size() && t_[i_] != ' ' && t_[i_] != '\t' && t_[i_] != '\n' && t_[i_] != '\r' && t_[i_] != '#')
      ++i_;
    const std::string token(t_.substr(start, i_ - start));
    last_ = uint32_t(start);
    if (token.rfind(kVersionWord, 0) == 0)
      fail(last_, "Open MPI reads the version header only at the file's first byte; here it would skip the words "
                  "and read the version's number as " + what);
    // Open MPI reads each number with fscanf's %li: decimal, 0x hexadecimal, or octal after a leading 0.
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(token.c_str(), &end, 0);
    // A long token is shown by its start (the caret marks where it is).
    size_t cut = token.size() > 40 ? 37 : token.size();
    while (cut > 0 && cut < token.size() && (static_cast<unsigned char>(token[cut]) & 0xC0) == 0x80) --cut;
    const std::string shown = cut < token.size() ? token.substr(0, cut) + "..." : token;
    if (token.empty() || end != token.c_str() + token.size())
      fail(last_, fmt::format("`{}` is not a number, and Open MPI reads {} here: a classic rules file holds whole "
                              "numbers and `#` comments only (Open MPI would skip the other characters and read "
                              "whatever number comes next)",
                              shown, what));
    if (errno == ERANGE || v < 0)
      fail(last_, fmt::format("{} is {}: a whole number of at least 0 and at most 2^63 - 1", what, shown));
    return int64_t(v);
  }

  std::string_view t_;
  size_t i_ = 0;
  uint32_t last_ = 0;
};

}  // namespace

std::optional<OpenmpiRules> parse_openmpi_rules_classic(std::string_view text, std::string& error,
                                                        uint32_t& error_at) {
  try {
    Numbers in(text);
    const int version = in.version();
    OpenmpiRules out;
    out.classic = true;
    const int64_t collectives = in.next("the number of collectives");
    if (collectives > kCollectiveCount)
      Numbers::fail(in.last(), fmt::format("the file gives rules for {} collectives; Open MPI has {}", collectives,
                                           kCollectiveCount));
    for (int64_t k = 0; k < collectives; ++k) {
      const std::string which = fmt::format("collective {} of {}", k + 1, collectives);
      const int64_t id = in.next(fmt::format("the id of {}", which));
      if (id >= kCollectiveCount)
        Numbers::fail(in.last(), fmt::format("{} has id {}: Open MPI numbers its collectives 0 (allgather) to {} ({})",
                                             which, id, kCollectiveCount - 1, kCollectiveIds[kCollectiveCount - 1]));
      const std::string name = kCollectiveIds[id];
      if (out.collectives.count(name))
        Numbers::fail(in.last(), fmt::format("{} ({}) has rules earlier in the file; Open MPI would drop those", name,
                                             id));
      const auto& algorithms = openmpi_algorithm_names(name);
      const int64_t comm_sizes = in.next(fmt::format("the number of communicator sizes of {}", name));
      std::vector<OpenmpiCommRule> comm_rules;
      for (int64_t c = 0; c < comm_sizes; ++c) {
        const std::string where = fmt::format("{}'s communicator size {} of {}", name, c + 1, comm_sizes);
        OpenmpiCommRule comm;
        comm.declared = in.next(where);
        comm.at = in.last();
        if (c > 0 && comm.declared <= comm_rules.back().declared)
          Numbers::fail(in.last(), fmt::format("{} is {}, not above the one before ({}): Open MPI reads the sizes in "
                                               "increasing order",
                                               where, comm.declared, comm_rules.back().declared));
        comm.min = c == 0 ? 0 : comm_rules.back().max + 1;
        comm.max = c + 1 == comm_sizes ? kRuleInf : std::max<int64_t>(comm.declared - 1, 0);
        const int64_t messages = in.next(fmt::format("the number of message sizes of {}", where));
        for (int64_t m = 0; m < messages; ++m) {
          const std::string rule = fmt::format("{}'s message rule {} of {} for communicator size {}", name, m + 1,
                                               messages, comm.declared);
          OpenmpiMsgRule r;
          r.min = in.next(fmt::format("the message size of {}", rule));
          r.at = in.last();
          if (m == 0 && r.min != 0)
            Numbers::fail(in.last(), fmt::format("{} starts at {} B; Open MPI asks the first rule of every list to "
                                                 "start at 0",
                                                 rule, r.min));
          if (m > 0 && r.min <= comm.rules.back().min)
            Numbers::fail(in.last(), fmt::format("the message size of {} is {}, not above the one before ({}): Open "
                                                 "MPI reads the sizes in increasing order",
                                                 rule, r.min, comm.rules.back().min));
          if (m > 0) comm.rules.back().max = r.min - 1;
          const int64_t alg = in.next(fmt::format("the algorithm of {}", rule));
          if (!algorithms.empty() && alg >= int64_t(algorithms.size()))
            Numbers::fail(in.last(), fmt::format("{}'s algorithms are numbered 0 to {}, and {} names {}", name,
                                                 algorithms.size() - 1, rule, alg));
          r.alg = int(std::min<int64_t>(alg, 1 << 20));
          r.faninout = in.next(fmt::format("the fan-in/out of {}", rule));
          r.segsize = in.next(fmt::format("the segment size of {}", rule));
          if (version > 1 && in.number_on_this_line()) r.reqs = in.next(fmt::format("the request limit of {}", rule));
          comm.rules.push_back(r);
        }
        comm_rules.push_back(std::move(comm));
      }
      out.collectives[name] = std::move(comm_rules);
    }
    if (!in.at_end())
      Numbers::fail(in.here(), fmt::format("the rules of the file's {} collective{} end before this, and Open MPI "
                                           "ignores what follows: is a count above too small?",
                                           collectives, collectives == 1 ? "" : "s"));
    return out;
  } catch (const Failure& f) {
    error = f.message;
    error_at = f.at;
    return std::nullopt;
  }
}

const OpenmpiMsgRule* find_openmpi_rule_released(const OpenmpiRules& rules, std::string_view collective,
                                                 const Layout& l, double bytes) {
  if (!rules.classic) return find_openmpi_rule(rules, collective, l, bytes);
  auto it = rules.collectives.find(collective);
  if (it == rules.collectives.end() || it->second.empty()) return nullptr;
  const OpenmpiCommRule* best = &it->second.front();
  for (const auto& comm : it->second) {
    if (comm.declared > l.ranks) break;
    best = &comm;
  }
  const OpenmpiMsgRule* found = nullptr;
  for (const auto& rule : best->rules) {
    if (double(rule.min) > bytes) break;
    found = &rule;
  }
  return found;
}

}  // namespace gpm::mpi
