// raw_csv.h: the raw measurements of tools/calibrate (docs/calibration.md): metadata, rows, reading and writing.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpm::calibrate {

// A malformed raw file or an impossible fit: the message names the file and line where there is one.
struct CalibrationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One measured point. `src` and `dst` are device numbers, or -1 for host memory. `amount` is bytes for copies,
// DRAM and overlap rows, flops for fma rows. Times are seconds per operation over `reps` timed repetitions.
struct Measurement {
  std::string benchmark;   // copy, overlap, fma, dram
  std::string direction;   // copy: h2d d2h d2d p2p; overlap: h2d d2h kernel h2d_d2h h2d_kernel; fma: fp32 fp64; dram: triad
  std::string memory;      // pinned pageable device peer_on peer_off
  int src = -1;
  int dst = -1;
  long long streams = 1;
  double amount = 0;
  long long reps = 0;
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  int line = 0;            // line in the file it was read from, 0 if made in memory
};

// The file: `# key: value` metadata lines (gpu, driver, date, devices, ...), free comment lines, the header, rows.
struct RawMeasurements {
  std::map<std::string, std::string> metadata;
  std::vector<std::string> comments;   // `#` lines that are not metadata, without the `# `
  std::vector<Measurement> rows;
  std::string file;                     // where it was read from, for messages

  const std::string& required(const std::string& key) const;
  std::optional<std::string> optional(const std::string& key) const;
};

// The fixed header line of format 1.
extern const char* const kRawHeader;

// Metadata keys the format defines; any other `# key: value` line is kept as a comment.
bool is_metadata_key(const std::string& key);

// Parses the text of a raw file; throws CalibrationError with `file:line:` on any malformed line.
RawMeasurements parse_raw(const std::string& text, const std::string& file);
RawMeasurements read_raw(const std::string& path);

// Writes metadata, comments, header and rows in format 1 (shortest round-trip numbers).
std::string format_raw(const RawMeasurements& raw);

// A GPU's kernel issue time from the CSV of tools/calibrate/launch.cu (docs/calibration.md, launch costs): its
// `kernel_batch` row of one block per SM (`grid<sms>`; the largest grid when the file names no `sms`), the median
// time per launch of empty kernels launched back to back until all have run.
struct KernelIssue {
  double seconds = 0;
  std::string what;        // the row's grid, `grid132`
  long long reps = 0;      // timed batches
  int line = 0;            // the row's line
  std::string gpu, driver, file;
};

// The fixed header line of launch.cu's CSV.
extern const char* const kLaunchHeader;

// Parses launch.cu's CSV; throws CalibrationError with `file:line:` on a malformed line or when no row fits.
KernelIssue parse_launch(const std::string& text, const std::string& file);
KernelIssue read_launch(const std::string& path);

}  // namespace gpm::calibrate
