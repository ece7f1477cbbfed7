// projection.h: a trace's copies from node A priced on node B, summed by size class and by kind (AHEAD section V,
// the Estimator), with errors against the trace itself and, when given, against a trace measured on B.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "project/copy_pricer.h"
#include "project/trace.h"
#include "validate/error_metrics.h"

namespace gpm::project {

// AHEAD section V (Fig. 1 and its text) sorts transfers into under 10 bytes, over 1 MB (10^6 B), and between.
const char* size_class_name(double bytes);  // "< 10 B", "10 B - 1 MB", "> 1 MB"

struct ProjectedCopy {
  const TraceCopy* copy = nullptr;  // in the trace from A
  double model_a_s = 0;             // A's machine model of the same copy
  double projected_b_s = 0;         // B's machine model: the projection
  double ratio_b_s = 0;             // the measured time on A x BW_A / BW_B (AHEAD section VI-D's alternative)
  double measured_b_s = 0;          // the matched copy of the trace measured on B (when one is given)
};

// The sums over a group of copies, and the errors of each way of predicting them.
struct CopyGroup {
  std::string name;  // a size class, or `h2d pinned`...
  uint64_t count = 0;
  double bytes = 0;
  double measured_a_s = 0, model_a_s = 0, projected_b_s = 0, ratio_b_s = 0, measured_b_s = 0;
  validate::ErrorSummary model_a_errors;    // A's model against A's trace
  validate::ErrorSummary projected_errors;  // B's projection against B's trace
  validate::ErrorSummary ratio_errors;      // the bandwidth ratio against B's trace
};

struct Projection {
  std::string trace_path, trace_format;
  std::string from_machine, from_file, to_machine, to_file;
  std::string measured_b_path;  // empty: no trace measured on B
  std::vector<ProjectedCopy> copies;   // in the trace's start order
  std::vector<CopyGroup> size_classes;  // the three of AHEAD, empty ones included
  std::vector<CopyGroup> kinds;         // one per (kind, memory) present, in a fixed order
  CopyGroup total;
  uint64_t kernel_count = 0;
  double kernel_time_a_s = 0;            // read from the trace, not projected
  std::vector<SkippedCopies> skipped;    // copies of A's trace no model prices
  std::vector<SkippedCopies> skipped_b;  // the same in the trace measured on B
};

// Prices every copy of `from_a` with `model_a` and `model_b`; with `measured_b`, matches its copies to A's (the
// k-th copy of a given kind, memory and size in A's trace with the k-th such copy in B's) and reports any copy
// without a partner as TraceMismatch in `diags`. False after reporting (pricing errors: see the pricers).
bool project_trace(const Trace& from_a, CopyPricer& model_a, CopyPricer& model_b, const Trace* measured_b,
                   support::DiagnosticEngine& diags, Projection& out, CopyPricer*& failed);

}  // namespace gpm::project
