// error_metrics.cpp: signed relative error, MAPE and WMAPE (AHEAD section VI-C) over measured and predicted times.
#include "validate/error_metrics.h"

#include <cmath>
#include <stdexcept>

namespace gpm::validate {

double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }

ErrorSummary summarize_errors(const std::vector<double>& measured, const std::vector<double>& predicted) {
  if (measured.size() != predicted.size()) throw std::logic_error("summarize_errors: sizes differ");
  ErrorSummary s;
  s.count = measured.size();
  double absolute_sum = 0, relative_sum = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    double gap = std::fabs(predicted[i] - measured[i]);
    absolute_sum += gap;
    relative_sum += gap / measured[i];
    s.measured_total_s += measured[i];
    s.predicted_total_s += predicted[i];
  }
  if (s.count == 0) return s;
  s.mape = relative_sum / double(s.count);
  s.wmape = s.measured_total_s > 0 ? absolute_sum / s.measured_total_s : 0;
  return s;
}

}  // namespace gpm::validate
