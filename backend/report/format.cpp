// format.cpp: number formatting shared by the report writers.
#include <cmath>

#include <fmt/format.h>

#include "backend/report/report.h"

namespace gpm::backend {

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
