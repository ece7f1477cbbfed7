// validation.h: `gpmc validate`: the model evaluated at each measured point of a CSV file, with the errors.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "driver/pipeline.h"
#include "validate/csv_table.h"
#include "validate/error_metrics.h"

namespace gpm::validate {

enum class Backend { Interp, Jit };

// A parameter column of the measurements: a parameter of the model, or a word-valued setting such as
// `comm_model` (whose cells are words, not quantities).
struct Column {
  std::string name;  // as written in the header
  bool word = false;                           // a word-valued setting (comm_model), not a parameter
  const frontend::ParamDecl* param = nullptr;  // parameters only (a word parameter's value is its word's index)
  int32_t slot = -1;
  support::Dim dim;
};

struct MeasuredPoint {
  uint32_t line = 0;                // in the CSV file, 1-based
  std::vector<double> values;       // one per column, base units (0 for a word setting, the index for a word param)
  std::vector<std::string> words;   // one per column: the word of a word setting or word parameter, else empty
  double measured_s = 0, predicted_s = 0;
  double error = 0;  // relative_error(predicted_s, measured_s)
  // What a model chose at this point (the nccl model's algorithm/protocol per operation), or empty.
  std::string choice;
};

struct Validation {
  std::string machine, app;
  std::string measured_path;  // the CSV file as given
  std::string measured_name;  // the header of its last column
  std::vector<Column> columns;
  std::vector<MeasuredPoint> points;  // in file order
  ErrorSummary errors;
  nlohmann::ordered_json provenance;  // what produced the result (set by the command line); null when not given
};

// Reads the columns and rows of `table` against the compiled model `base` (compiled with the --set values that
// hold for every point) and evaluates every row. Every column but the last names a parameter (found as --set
// finds it) or a word-valued setting; its cells are parsed as --set values are. The last column is the measured
// time, a positive number of seconds. A column that shapes the model (an array size, an index, a model choice)
// lowers the model again for each point; any other point reuses `base`, with the interpreter's values-only path
// or one JIT compilation whose inputs are the columns. Returns false after reporting, at the CSV's line and
// column: an unknown or repeated parameter, a bad value, a bad measurement, or a point where the model fails
// (its own diagnostics, then PointFailed at the row).
bool validate_points(driver::Session& session, const driver::Compiled& base, const CsvTable& table, Backend backend,
                     Validation& out);

}  // namespace gpm::validate
