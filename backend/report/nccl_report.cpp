// nccl_report.cpp: the choice of MPI operations priced on the nccl model in the table: the algorithm and protocol
// chosen and every one the library considered, with its latency, bus bandwidth and time; and the choices of an
// evaluation (the nccl model's, an MPI library's) for `gpmc validate` and `gpmc sweep`.
#include <fmt/format.h>

#include "backend/report/report.h"
#include "support/units.h"

namespace gpm::backend {

std::string nccl_choice_table(const Evaluation& e) {
  std::string out;
  for (const auto& phase : e.phases)
    for (const auto& row : phase.rows) {
      if (!row.detail.is_object() || row.detail.value("comm_model", std::string()) != "nccl") continue;
      out += fmt::format("\n{} / {} (nccl: {}/{}, chosen by {}):\n", phase.name, row.name,
                         row.detail["algorithm"].get<std::string>(), row.detail["protocol"].get<std::string>(),
                         row.detail["chosen_by"].get<std::string>());
      for (const auto& c : row.detail["candidates"]) {
        std::string name = c["algorithm"].get<std::string>() + "/" + c["protocol"].get<std::string>();
        std::string bw = c.contains("bus_bw") ? fmt::format("  bus bandwidth {}", support::format_quantity(
                                                                                      c["bus_bw"].get<double>(),
                                                                                      support::Dim::byte() /
                                                                                          support::Dim::seconds()))
                                              : "";
        out += fmt::format("  {:<16}  {}  latency {}{}\n", name, format_seconds(c["time_s"].get<double>()),
                           format_seconds(c["latency_s"].get<double>()), bw);
      }
    }
  return out;
}

std::string operation_choices(const Evaluation& e) {
  std::string out;
  for (const auto& phase : e.phases)
    for (const auto& row : phase.rows) {
      if (!row.detail.is_object()) continue;
      if (row.detail.value("comm_model", std::string()) == "nccl")
        out += (out.empty() ? "" : ", ") + row.detail["algorithm"].get<std::string>() + "/" +
               row.detail["protocol"].get<std::string>();
      else if (row.detail.contains("chosen_by"))  // an MPI library's choice
        out += (out.empty() ? "" : ", ") + row.detail.value("algorithm", std::string());
    }
  return out;
}

}  // namespace gpm::backend
