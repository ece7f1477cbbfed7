// flows_report.cpp: the flows of congestion engines in the reports: per-flow start and end, per-step factors; and
// the steps of MPI operations on the fabric model with each step's busiest link.
#include <algorithm>

#include <fmt/format.h>

#include "backend/report/report.h"
#include "support/units.h"

namespace gpm::backend {

namespace {
template <typename F>
void for_each_flow_row(const Evaluation& e, F&& f) {
  for (const auto& phase : e.phases)
    for (const auto& row : phase.rows)
      if (row.detail.is_object() && row.detail.contains("flows")) f(phase, row);
}
}  // namespace

std::string flows_table(const Evaluation& e) {
  std::string out;
  for_each_flow_row(e, [&](const PhaseResult& phase, const Row& row) {
    out += fmt::format("\n{} / {} ({} arbitration; times from the start of one execution):\n", phase.name, row.name,
                       row.detail.value("arbitration", std::string()));
    size_t w = 0;
    for (size_t i = 0; i < row.detail["flows"].size() && i < kTableFlows; ++i)
      w = std::max(w, row.detail["flows"][i]["name"].get<std::string>().size());
    const auto& flows = row.detail["flows"];
    const bool max_min = row.detail.value("arbitration", std::string()) == "max-min";
    size_t total = row.detail.value("flows_total", flows.size());
    for (size_t i = 0; i < flows.size() && i < kTableFlows; ++i) {
      const auto& f = flows[i];
      // Under max-min sharing a flow starts later than issued only when it waited for its queue (a copy engine, a
      // kernel's GPU, or a pageable copy's turn: its GPU's other pageable copies, a pinned copy on its copy engine).
      // A kernel's flow shows its time, not bytes.
      const bool kernel = f.contains("kernel_s");
      std::string waited;
      if (max_min && f.contains("issued_s") && f["issued_s"].get<double>() < f["start_s"].get<double>())
        waited = fmt::format("  (issued {}, waited for its {})", format_seconds(f["issued_s"].get<double>()),
                             kernel                              ? "GPU"
                             : f.contains("rate_cap_bytes_per_s") ? "turn"
                                                                  : "copy engine");
      out += fmt::format("  {:<{}}  {}  {}  start {}  end {}{}\n", f["name"].get<std::string>(), w,
                         kernel ? std::string("kernel") : f["route"].get<std::string>(),
                         kernel ? format_seconds(f["kernel_s"].get<double>())
                                : support::format_quantity(f["bytes"].get<double>(), support::Dim::byte()),
                         format_seconds(f["start_s"].get<double>()), format_seconds(f["end_s"].get<double>()), waited);
    }
    if (total > kTableFlows)
      out += fmt::format("  ... {} more flows (see --format json, or --flows-out FILE.csv for every flow)\n",
                         total - kTableFlows);
    const auto& steps = row.detail["steps"];
    out += "  steps (congestion factor of each active flow):\n";
    for (size_t i = 0; i < steps.size() && i < kTableSteps; ++i) {
      // The first flows' factors, as many as the flows listed above; a step of more says how many more.
      std::string factors;
      const auto& listed = steps[i]["factors"];
      const size_t shown = std::min(listed.size(), kTableFlows);
      for (size_t k = 0; k < shown; ++k)
        factors += fmt::format("{}{} {:.4g}", k == 0 ? "" : ", ", listed[k]["flow"].get<std::string>(),
                               listed[k]["factor"].get<double>());
      const size_t factors_total = steps[i].value("factors_total", listed.size());
      if (factors_total > shown) factors += fmt::format(", ... {} more", factors_total - shown);
      if (factors.empty()) factors = "(no flow moving: latencies and delays)";
      out += fmt::format("    {} .. {}: {}\n", format_seconds(steps[i]["start_s"].get<double>()),
                         format_seconds(steps[i]["end_s"].get<double>()), factors);
    }
    const size_t steps_total = row.detail.value("steps_total", steps.size());
    if (steps_total > kTableSteps) out += fmt::format("    ... {} more steps (see --format json)\n", steps_total - kTableSteps);
    if (row.detail.contains("links") && !row.detail["links"].empty()) {
      const auto& links = row.detail["links"];
      out += "  busiest links (bytes / (bandwidth x makespan)):\n";
      size_t lw = 0;
      for (size_t i = 0; i < links.size() && i < kTableLinks; ++i)
        lw = std::max(lw, links[i]["link"].get<std::string>().size());
      for (size_t i = 0; i < links.size() && i < kTableLinks; ++i)
        out += fmt::format("    {:<{}}  {:5.1f}%  {}  {} flow{}  {}\n", links[i]["link"].get<std::string>(), lw,
                           100 * links[i]["utilisation"].get<double>(),
                           support::format_quantity(links[i]["bytes"].get<double>(), support::Dim::byte()),
                           links[i]["flows"].get<int>(), links[i]["flows"].get<int>() == 1 ? "" : "s",
                           support::format_quantity(links[i]["bandwidth"].get<double>(),
                                                    support::Dim::byte() / support::Dim::seconds()));
      const size_t links_total = row.detail.value("links_total", links.size());
      if (links_total > kTableLinks)
        out += fmt::format("    ... {} more links (see --format json)\n", links_total - kTableLinks);
    }
  });
  return out;
}

std::string fabric_steps_table(const Evaluation& e) {
  std::string out;
  for (const auto& phase : e.phases)
    for (const auto& row : phase.rows) {
      if (!row.detail.is_object() || row.detail.value("comm_model", std::string()) != "fabric") continue;
      const auto& steps = row.detail["steps"];
      if (steps.empty()) continue;
      out += fmt::format("\n{} / {} (fabric: each step's messages are flows on the machine's links):\n", phase.name,
                         row.name);
      size_t w = 0;
      for (size_t i = 0; i < steps.size() && i < kTableSteps; ++i)
        w = std::max(w, steps[i]["step"].get<std::string>().size());
      for (size_t i = 0; i < steps.size() && i < kTableSteps; ++i) {
        const auto& s = steps[i];
        std::string bytes =
            s.contains("message_bytes")
                ? support::format_quantity(s["message_bytes"].get<double>(), support::Dim::byte())
            : s.contains("largest_message_bytes")  // an alltoallv's messages of their own sizes
                ? "up to " + support::format_quantity(s["largest_message_bytes"].get<double>(), support::Dim::byte())
                : support::format_quantity(s["face_bytes"].get<double>(), support::Dim::byte()) + " a face";
        int64_t messages = s["messages"].get<int64_t>();
        out += fmt::format("  {:<{}}  x{}  {} message{} of {}  {} each", s["step"].get<std::string>(), w,
                           s["repeat"].get<double>(), messages, messages == 1 ? "" : "s", bytes,
                           format_seconds(s["time_s"].get<double>()));
        if (s.contains("busiest_link"))
          out += fmt::format("; busiest link {} ({}, {} at its bandwidth)", s["busiest_link"].get<std::string>(),
                             support::format_quantity(s["busiest_link_bytes"].get<double>(), support::Dim::byte()),
                             format_seconds(s["busiest_link_s"].get<double>()));
        out += "\n";
      }
      if (steps.size() > kTableSteps)
        out += fmt::format("  ... {} more steps (see --format json)\n", steps.size() - kTableSteps);
    }
  return out;
}

nlohmann::ordered_json links_json(const Evaluation& e) {
  nlohmann::ordered_json all;
  for_each_flow_row(e, [&](const PhaseResult& phase, const Row& row) {
    if (!row.detail.contains("links")) return;
    for (const auto& l : row.detail["links"]) {
      nlohmann::ordered_json entry;
      entry["phase"] = phase.name;
      entry["operation"] = row.name;
      for (const auto& [key, value] : l.items()) entry[key] = value;
      all.push_back(entry);
    }
  });
  return all;
}

nlohmann::ordered_json flows_json(const Evaluation& e) {
  nlohmann::ordered_json all;
  for_each_flow_row(e, [&](const PhaseResult& phase, const Row& row) {
    for (const auto& f : row.detail["flows"]) {
      nlohmann::ordered_json entry;
      entry["phase"] = phase.name;
      entry["operation"] = row.name;
      for (const auto& [key, value] : f.items()) entry[key] = value;
      all.push_back(entry);
    }
  });
  return all;
}

}  // namespace gpm::backend
