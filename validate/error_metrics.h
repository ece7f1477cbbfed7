// error_metrics.h: the error of predictions against measurements: signed relative error, MAPE and WMAPE.
#pragma once
#include <cstddef>
#include <vector>

namespace gpm::validate {

// The signed relative error of one prediction P against its measurement A > 0: (P - A) / A. Positive when
// the model predicts a longer time than was measured.
double relative_error(double predicted, double measured);

// Over n pairs (A_i measured, P_i predicted), every A_i > 0, as fractions (0.1 is 10%):
//   MAPE  = (1/n) * sum_i |P_i - A_i| / A_i                      (each point weighs the same)
//   WMAPE = sum_i |P_i - A_i| / sum_i A_i
// WMAPE is AHEAD's metric (section VI-C, "Error Calculation"): each transfer's absolute percentage error
// |A_i - P_i| / A_i weighted by W_i = A_i / sum_j A_j and summed (the weights sum to 1, so this is the
// W-weighted average of the errors), which reduces to the ratio above; long operations weigh more than short
// ones, whose relative error is large and noisy. Both are 0 for no pairs.
struct ErrorSummary {
  size_t count = 0;
  double mape = 0;
  double wmape = 0;
  double measured_total_s = 0;   // sum_i A_i
  double predicted_total_s = 0;  // sum_i P_i
};

ErrorSummary summarize_errors(const std::vector<double>& measured, const std::vector<double>& predicted);

}  // namespace gpm::validate
