// format.cpp: number formatting and the iteration parts (E2E section 3.4) shared by the report writers.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "backend/report/report.h"

namespace gpm::backend {

Parts iteration_parts(const Evaluation& e) {
  Parts p;
  for (const auto& phase : e.phases)
    for (const auto& row : phase.rows)
      if (!row.part.empty()) {
        p.any = true;
        p.iterations = std::max(p.iterations, row.count);
      }
  for (const auto& phase : e.phases)
    for (const auto& row : phase.rows) {
      if (row.critical == 0) continue;  // a par branch shorter than another: its time is not the run's
      double each = row.total_s / p.iterations;
      if (row.kernels_each_s >= 0 && !row.part.empty()) {  // an offload or a mapped run: its kernels, then the rest
        double kernels = row.kernels_each_s * row.count / p.iterations;
        p.kernels_s += kernels;
        each -= kernels;
      }
      if (row.part == "communication") {
        p.communication = true;
        p.communication_s += each;
      } else if (row.part == "kernels") {
        p.kernels_s += each;
      } else if (row.part == "overhead") {
        p.overhead_s += each;
      }
    }
  return p;
}

std::string format_seconds(double s) {
  double mag = std::fabs(s);
  if (s == 0) return "0 s";
  if (mag >= 1) return fmt::format("{:.6g} s", s);
  if (mag >= 1e-3) return fmt::format("{:.6g} ms", s * 1e3);
  if (mag >= 1e-6) return fmt::format("{:.6g} us", s * 1e6);
  if (mag >= 1e-9) return fmt::format("{:.6g} ns", s * 1e9);
  return fmt::format("{:.6g} ps", s * 1e12);
}

std::string format_share(double part, double total) {
  if (!(total > 0)) return "-";
  return fmt::format("{:.1f}%", 100.0 * part / total);
}

}  // namespace gpm::backend
