// fit.h: turns raw calibration measurements into model parameters (AHEAD eq. 9 and 10, van Werkhoven section V).
#pragma once

#include "tools/calibrate/raw_csv.h"

#include <optional>
#include <string>
#include <vector>

namespace gpm::calibrate {

// y = intercept + slope * x, fitted by least squares on relative residuals: it minimises
// sum(((intercept + slope * x_i) - y_i) / y_i)^2, so a 1 kB copy counts as much as a 64 MB one (the error
// measure of AHEAD section VI-C is relative too).
struct LineFit {
  double intercept = 0;
  double slope = 0;
  size_t points = 0;
  double min_x = 0;
  double max_x = 0;
  double max_relative_residual = 0;   // max |fit - y| / y over the points
};
LineFit fit_relative_least_squares(const std::vector<double>& x, const std::vector<double>& y);

// A copy over sizes: eq. 10 (T = L+O + n / BW) fitted over the sizes measured with one stream.
struct CopyFit {
  LineFit line;
  std::optional<double> one_byte_s;   // the measured time of a one-byte copy, AHEAD's definition of L+O
  double latency_s() const { return one_byte_s ? *one_byte_s : line.intercept; }
  double bandwidth() const { return 1.0 / line.slope; }
};

struct DeviceCalibration {
  int device = 0;
  CopyFit h2d, d2h;                                  // pinned, required
  std::optional<CopyFit> h2d_pageable, d2h_pageable;
  std::optional<double> gap_h2d_s, gap_d2h_s;        // van Werkhoven T = L+o + kG + g(n-1), g by least squares
  size_t gap_h2d_points = 0, gap_d2h_points = 0;
  std::optional<CopyFit> d2d;
  std::optional<double> peak_fp32, peak_fp64;        // flop/s, the best of the fma rows
  std::optional<double> dram_bw;                     // B/s, the best of the triad rows (bytes read + written)
  std::optional<double> bidirectional_ratio;         // t(h2d and d2h together) / (t(h2d) + t(d2h))
  std::optional<double> copy_kernel_ratio;           // t(h2d and kernel together) / (t(h2d) + t(kernel))
  std::optional<int> measured_copy_engines;          // 2 when the bidirectional ratio is below 0.75, else 1
};

struct PeerCalibration {
  int src = 0, dst = 0;
  bool peer_access = true;                           // cudaDeviceEnablePeerAccess on (peer_on) or off
  CopyFit fit;
};

struct Calibration {
  std::vector<DeviceCalibration> devices;            // one per device with host copies, by device number
  std::vector<PeerCalibration> peers;                // by (src, dst, peer_access)
  std::optional<double> host_mem_bw;                 // B/s from the pageable fits (eq. 9), median over fits
  size_t host_mem_bw_fits = 0;
};

// Fits every device and pair; throws CalibrationError where a required measurement is missing or a fit is
// impossible (a non-positive slope, a negative L+O without a one-byte measurement).
Calibration fit_calibration(const RawMeasurements& raw);

}  // namespace gpm::calibrate
