// fuzz_tables.cpp: libFuzzer target over the readers of measured data: the CSV tables of `gpmc validate`, the
// traces of `gpmc project` (CSV, and Nsight Systems SQLite exports when the input starts with SQLite's header), and
// tools/calibrate's raw measurements (read, fitted and written as a machine) and launch costs.
//
// The readers take a path, so each input is written to one file of this process (in $TMPDIR, else /tmp) and read
// back by read_csv_table and read_trace. What the target looks for is a crash, a sanitizer report or an uncaught
// exception; a reported error is the expected outcome.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "project/trace.h"
#include "tools/calibrate/fit.h"
#include "tools/calibrate/machine_writer.h"
#include "tools/calibrate/raw_csv.h"
#include "validate/csv_table.h"

namespace {

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/gpmc_fuzz_tables_" + std::to_string(getpid()) + ".csv";
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratch_path();
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
  try {
    {
      gpm::support::SourceManager sources;
      gpm::support::DiagnosticEngine diags(sources);
      gpm::validate::CsvTable table;
      gpm::validate::read_csv_table(path, "measurements", sources, diags, table);
    }
    {
      gpm::support::SourceManager sources;
      gpm::support::DiagnosticEngine diags(sources);
      gpm::project::Trace trace;
      gpm::project::read_trace(path, "trace", sources, diags, trace);
    }
    // The calibration readers report bad input as CalibrationError; anything else escaping is a finding.
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
      gpm::calibrate::RawMeasurements raw = gpm::calibrate::parse_raw(text, "raw.csv");
      gpm::calibrate::Calibration cal = gpm::calibrate::fit_calibration(raw);
      gpm::calibrate::write_machine(raw, cal, "fuzz", "raw.csv");
    } catch (const gpm::calibrate::CalibrationError&) {
    }
    try {
      gpm::calibrate::parse_launch(text, "launch.csv");
    } catch (const gpm::calibrate::CalibrationError&) {
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_tables: uncaught exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
