// openmpi_rules.cpp: reading a user's Open MPI dynamic rules file (openmpi_rules.h) and finding the rule for an
// operation as Open MPI's coll_tuned_dynamic_rules.c does (the first communicator rule whose sizes hold, then its
// first message rule whose sizes hold, both bounds inclusive). The format is Open MPI's published JSON schema
// (docs/tuning-apps/tuned_dynamic_file_schema.json); the JSON is parsed by nlohmann-json, and a small scanner below
// finds where each value starts so that errors point into the file.
#include "engines/mpi/openmpi_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace gpm::mpi {

namespace {

using json = nlohmann::json;

// The byte offset where each value of a (well-formed) JSON text starts, by its JSON pointer ("/collectives/bcast/0").
class Positions {
 public:
  explicit Positions(std::string_view text) : t_(text) {
    skip();
    value("");
  }
  uint32_t at(const std::string& pointer) const {
    auto it = at_.find(pointer);
    return it == at_.end() ? 0 : it->second;
  }

 private:
  void skip() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  std::string string() {  // at a '"': the string's raw text (escapes kept; keys here have none)
    size_t start = ++i_;
    while (i_ < t_.size() && t_[i_] != '"') i_ += t_[i_] == '\\' ? 2 : 1;
    std::string s(t_.substr(start, std::min(i_, t_.size()) - start));
    ++i_;
    return s;
  }
  void value(const std::string& pointer) {
    at_[pointer] = uint32_t(i_);
    if (i_ >= t_.size()) return;
    if (t_[i_] == '{') {
      ++i_;
      skip();
      while (i_ < t_.size() && t_[i_] != '}') {
        std::string key = string();
        skip();
        ++i_;  // ':'
        skip();
        value(pointer + "/" + key);
        skip();
        if (i_ < t_.size() && t_[i_] == ',') ++i_;
        skip();
      }
      ++i_;
    } else if (t_[i_] == '[') {
      ++i_;
      skip();
      for (size_t k = 0; i_ < t_.size() && t_[i_] != ']'; ++k) {
        value(pointer + "/" + std::to_string(k));
        skip();
        if (i_ < t_.size() && t_[i_] == ',') ++i_;
        skip();
      }
      ++i_;
    } else if (t_[i_] == '"') {
      string();
    } else {
      while (i_ < t_.size() && !std::isspace(static_cast<unsigned char>(t_[i_])) && t_[i_] != ',' && t_[i_] != '}' &&
             t_[i_] != ']')
        ++i_;
    }
  }

  std::string_view t_;
  size_t i_ = 0;
  std::map<std::string, uint32_t> at_;
};

// The schema's collective names (patternProperties of "collectives").
const std::vector<std::string>& known_collectives() {
  static const std::vector<std::string> names = {
      "allgather",  "allreduce", "alltoall",           "alltoallv",          "alltoallw",         "barrier",
      "bcast",      "exscan",    "gather",             "gatherv",            "reduce",            "reducescatter",
      "reducescatterblock", "scan", "scatter",         "scatterv",           "neighbor_allgather", "neighbor_allgatherv",
      "neighbor_alltoall",  "neighbor_alltoallv", "neighbor_alltoallw"};
  return names;
}

struct Failure {
  std::string message;
  uint32_t at;
};

}  // namespace

const char* openmpi_collective_name(Collective c) {
  // A rules file's names are gpmc's but for the reduce-scatter's.
  return c == Collective::ReduceScatter ? "reducescatter" : collective_name(c);
}

// Open MPI's coll_tuned_<collective>_algorithm values (coll_tuned_<collective>_decision.c), number = index.
const std::vector<std::string>& openmpi_algorithm_names(std::string_view collective) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> names = {
      {"allreduce",
       {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner",
        "allgather_reduce"}},
      {"bcast",
       {"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial",
        "scatter_allgather", "scatter_allgather_ring"}},
      {"reduce",
       {"ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner", "knomial"}},
      {"allgather",
       {"ignore", "linear", "bruck-k-fanout", "recursive_doubling", "ring", "neighbor", "two_proc", "sparbit",
        "direct-messaging"}},
      {"alltoall", {"ignore", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"}},
      {"alltoallv", {"ignore", "basic_linear", "pairwise"}},
      {"reducescatter", {"ignore", "non-overlapping", "recursive_halving", "ring", "butterfly"}},
      {"gather", {"ignore", "basic_linear", "binomial", "linear_sync"}},
      {"scatter", {"ignore", "basic_linear", "binomial", "linear_nb"}},
      {"barrier", {"ignore", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"}}};
  static const std::vector<std::string> none;
  auto it = names.find(collective);
  return it == names.end() ? none : it->second;
}

std::optional<OpenmpiRules> parse_openmpi_rules(std::string_view text, std::string& error, uint32_t& error_at) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[' && text[first] != '"'))
    return parse_openmpi_rules_classic(text, error, error_at);
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // nlohmann's message after its "[json.exception...] parse error at line L, column C: " (the diagnostic's place).
    std::string what = e.what();
    if (size_t k = what.find(": "); k != std::string::npos) what = what.substr(k + 2);
    error = fmt::format("not JSON: {}", what);
    error_at = uint32_t(std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size()));
    return std::nullopt;
  }
  Positions where(text);
  try {
    auto fail = [&](const std::string& pointer, std::string message) {
      throw Failure{pointer.empty() ? std::move(message) : fmt::format("{}: {}", pointer, std::move(message)),
                    where.at(pointer)};
    };
    if (!root.is_object()) fail("", "a rules file is a JSON object (Open MPI's tuned rules, rule_file_version 3)");
    for (const auto& [key, value] : root.items()) {
      if (key != "rule_file_version" && key != "module" && key != "collectives" && key != "$schema")
        fail("/" + key, "not a field of a rules file (rule_file_version, module, collectives, $schema)");
    }
    for (const char* required : {"rule_file_version", "module", "collectives"})
      if (!root.contains(required))
        fail("", fmt::format("the rules file has no \"{}\", which Open MPI's schema requires", required));
    if (!root["rule_file_version"].is_number()) fail("/rule_file_version", "the version is a number");
    if (!root["module"].is_string() || root["module"] != "tuned")
      fail("/module", "the module these rules are for is \"tuned\" (Open MPI's tuned component)");
    const json& collectives = root["collectives"];
    if (!collectives.is_object()) fail("/collectives", "the collectives are an object, one array of rules per name");
    // A count field: an integer of at least zero, or "inf" where the schema allows it.
    auto count = [&](const json& object, const std::string& pointer, const char* field, bool inf_allowed,
                     int64_t fallback) -> int64_t {
      if (!object.contains(field)) return fallback;
      const json& v = object[field];
      const std::string at = pointer + "/" + field;
      if (inf_allowed && v.is_string()) {
        std::string s = v.get<std::string>();
        if (s.size() >= 3 && (s.compare(0, 3, "inf") == 0 || s.compare(0, 3, "Inf") == 0 || s.compare(0, 3, "INF") == 0))
          return kRuleInf;
        fail(at, fmt::format("\"{}\" is an integer or \"inf\"", field));
      }
      if (!v.is_number_integer() || v.get<int64_t>() < 0)
        fail(at, fmt::format("\"{}\" is an integer of at least 0{}", field, inf_allowed ? " or \"inf\"" : ""));
      return v.get<int64_t>();
    };
    OpenmpiRules out;
    for (const auto& [name, list] : collectives.items()) {
      const std::string cp = "/collectives/" + name;
      if (std::find(known_collectives().begin(), known_collectives().end(), name) == known_collectives().end())
        fail(cp, "not a collective of a rules file (lower case, such as \"allreduce\" or \"reducescatter\")");
      if (!list.is_array()) fail(cp, "a collective's rules are an array of communicator-size rules");
      const auto& algorithms = openmpi_algorithm_names(name);
      std::vector<OpenmpiCommRule> comm_rules;
      for (size_t i = 0; i < list.size(); ++i) {
        const json& c = list[i];
        const std::string rp = cp + "/" + std::to_string(i);
        if (!c.is_object()) fail(rp, "a communicator-size rule is an object");
        for (const auto& [key, value] : c.items())
          if (key != "comm_size_min" && key != "comm_size_max" && key != "comm_rank_distribution" && key != "rules")
            fail(rp + "/" + key,
                 "not a field of a communicator-size rule (comm_size_min, comm_size_max, comm_rank_distribution, rules)");
        if (!c.contains("rules")) fail(rp, "a communicator-size rule has \"rules\"");
        OpenmpiCommRule comm;
        comm.min = count(c, rp, "comm_size_min", true, 0);
        comm.max = count(c, rp, "comm_size_max", true, kRuleInf);
        if (c.contains("comm_rank_distribution")) {
          const json& d = c["comm_rank_distribution"];
          const std::string s = d.is_string() ? d.get<std::string>() : "";
          if (s == "one-per-node") comm.distribution = OpenmpiCommRule::Distribution::OnePerNode;
          else if (s == "single-node") comm.distribution = OpenmpiCommRule::Distribution::SingleNode;
          else if (s != "any")
            fail(rp + "/comm_rank_distribution", "the distribution is \"any\", \"one-per-node\" or \"single-node\"");
        }
        const json& rules = c["rules"];
        if (!rules.is_array()) fail(rp + "/rules", "the rules are an array of message-size rules");
        for (size_t j = 0; j < rules.size(); ++j) {
          const json& m = rules[j];
          const std::string mp = rp + "/rules/" + std::to_string(j);
          if (!m.is_object()) fail(mp, "a message-size rule is an object");
          for (const auto& [key, value] : m.items())
            if (key != "msg_size_min" && key != "msg_size_max" && key != "alg" && key != "reqs" &&
                key != "faninout" && key != "seg_size")
              fail(mp + "/" + key,
                   "not a field of a message-size rule (msg_size_min, msg_size_max, alg, reqs, faninout, seg_size)");
          if (!m.contains("alg")) fail(mp, "a message-size rule names its algorithm (\"alg\")");
          OpenmpiMsgRule rule;
          rule.at = where.at(mp);
          rule.min = count(m, mp, "msg_size_min", true, 0);
          rule.max = count(m, mp, "msg_size_max", true, kRuleInf);
          rule.faninout = count(m, mp, "faninout", false, 0);
          rule.segsize = count(m, mp, "seg_size", false, 0);
          rule.reqs = count(m, mp, "reqs", false, 0);
          const json& alg = m["alg"];
          const std::string ap = mp + "/alg";
          if (alg.is_string()) {
            auto it = std::find(algorithms.begin(), algorithms.end(), alg.get<std::string>());
            if (!algorithms.empty() && it == algorithms.end())
              fail(ap, fmt::format("{} has no algorithm \"{}\" (Open MPI's: {})", name, alg.get<std::string>(),
                                   fmt::join(algorithms, ", ")));
            rule.alg = it == algorithms.end() ? 0 : int(it - algorithms.begin());
          } else if (alg.is_number_integer()) {
            const int64_t v = alg.get<int64_t>();
            if (v < 0 || (!algorithms.empty() && v >= int64_t(algorithms.size())))
              fail(ap, fmt::format("{}'s algorithms are numbered 0 to {}", name,
                                   algorithms.empty() ? 0 : algorithms.size() - 1));
            rule.alg = int(v);
          } else {
            fail(ap, "an algorithm is a name or a number");
          }
          comm.rules.push_back(rule);
        }
        comm_rules.push_back(std::move(comm));
      }
      out.collectives[name] = std::move(comm_rules);
    }
    return out;
  } catch (const Failure& f) {
    error = f.message;
    error_at = f.at;
    return std::nullopt;
  }
}

const OpenmpiMsgRule* find_openmpi_rule(const OpenmpiRules& rules, std::string_view collective, const Layout& l,
                                        double bytes) {
  auto it = rules.collectives.find(collective);
  if (it == rules.collectives.end()) return nullptr;
  for (const auto& comm : it->second) {
    using D = OpenmpiCommRule::Distribution;
    if (comm.distribution == D::OnePerNode && l.nodes != l.ranks) continue;
    if (comm.distribution == D::SingleNode && l.nodes != 1) continue;
    if (!(comm.min <= l.ranks && l.ranks <= comm.max)) continue;
    // Open MPI takes the first communicator rule that holds, then searches only its message rules.
    for (const auto& rule : comm.rules)
      if (double(rule.min) <= bytes && (rule.max == kRuleInf || bytes <= double(rule.max))) return &rule;
    return nullptr;
  }
  return nullptr;
}

}  // namespace gpm::mpi
