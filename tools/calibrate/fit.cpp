// fit.cpp: least-squares fits of the raw calibration measurements (AHEAD eq. 9-10, van Werkhoven section V).
#include "tools/calibrate/fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpm::calibrate {

LineFit fit_relative_least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) throw CalibrationError("a line fit needs at least two points");
  // Weighted least squares with w_i = 1 / y_i^2, on centred sums (long double) for stability.
  long double sw = 0, swx = 0, swy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    long double w = 1.0L / ((long double)y[i] * y[i]);
    sw += w;
    swx += w * x[i];
    swy += w * y[i];
  }
  long double mx = swx / sw, my = swy / sw, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    long double w = 1.0L / ((long double)y[i] * y[i]);
    sxx += w * (x[i] - mx) * (x[i] - mx);
    sxy += w * (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) throw CalibrationError("a line fit needs at least two different sizes");
  LineFit fit;
  fit.slope = static_cast<double>(sxy / sxx);
  fit.intercept = static_cast<double>(my - (sxy / sxx) * mx);
  fit.points = x.size();
  fit.min_x = *std::min_element(x.begin(), x.end());
  fit.max_x = *std::max_element(x.begin(), x.end());
  for (size_t i = 0; i < x.size(); ++i)
    fit.max_relative_residual =
        std::max(fit.max_relative_residual, std::abs(fit.intercept + fit.slope * x[i] - y[i]) / y[i]);
  return fit;
}

namespace {

std::string where(const RawMeasurements& raw, const std::string& what) { return raw.file + ": " + what; }

// Eq. 10 over the single-stream rows selected; a one-byte row, if any, is AHEAD's L+O.
std::optional<CopyFit> fit_copy(const RawMeasurements& raw, const std::string& direction, const std::string& memory,
                                int src, int dst, const std::string& label) {
  std::vector<double> sizes, times;
  std::optional<double> one_byte;
  for (const auto& m : raw.rows) {
    if (m.benchmark != "copy" || m.direction != direction || m.memory != memory || m.src != src || m.dst != dst ||
        m.streams != 1)
      continue;
    sizes.push_back(m.amount);
    times.push_back(m.median_s);
    if (m.amount == 1) one_byte = m.median_s;
  }
  if (sizes.empty()) return std::nullopt;
  if (std::set<double>(sizes.begin(), sizes.end()).size() < 2)
    throw CalibrationError(where(raw, label + ": needs copies of at least two different sizes"));
  CopyFit fit{fit_relative_least_squares(sizes, times), one_byte};
  if (fit.line.slope <= 0)
    throw CalibrationError(where(raw, label + ": the time does not grow with the size (slope <= 0)"));
  if (fit.latency_s() < 0)
    throw CalibrationError(where(raw, label + ": the fitted L+O is negative; add a one-byte copy to the measurements"));
  return fit;
}

// Van Werkhoven section V: T = L+o + k G + g (n - 1); with L+o and G from the single-stream fit, g is the
// least-squares slope through the origin of T - (L+o + k G) against n - 1.
std::optional<double> fit_gap(const RawMeasurements& raw, const std::string& direction, int device, const CopyFit& one,
                              size_t& points) {
  long double num = 0, den = 0;
  points = 0;
  for (const auto& m : raw.rows) {
    if (m.benchmark != "copy" || m.direction != direction || m.memory != "pinned" || m.streams < 2) continue;
    if ((direction == "h2d" ? m.dst : m.src) != device) continue;
    long double extra = m.streams - 1;
    long double residual = m.median_s - (one.line.intercept + one.line.slope * m.amount);
    num += extra * residual;
    den += extra * extra;
    ++points;
  }
  if (points == 0) return std::nullopt;
  return std::max(0.0, static_cast<double>(num / den));
}

std::optional<double> best_rate(const RawMeasurements& raw, const std::string& benchmark, const std::string& direction,
                                int device) {
  std::optional<double> best;
  for (const auto& m : raw.rows)
    if (m.benchmark == benchmark && m.direction == direction && m.src == device)
      best = std::max(best.value_or(0.0), m.amount / m.median_s);
  return best;
}

// The median time of the overlap row of this kind and size on the device.
std::optional<double> overlap_time(const RawMeasurements& raw, const std::string& direction, int device, double amount) {
  for (const auto& m : raw.rows)
    if (m.benchmark == "overlap" && m.direction == direction && m.src == device && m.amount == amount)
      return m.median_s;
  return std::nullopt;
}

void fit_overlap(const RawMeasurements& raw, DeviceCalibration& dev) {
  for (const auto& m : raw.rows) {
    if (m.benchmark != "overlap" || m.src != dev.device) continue;
    auto h2d = overlap_time(raw, "h2d", dev.device, m.amount);
    if (m.direction == "h2d_d2h") {
      auto d2h = overlap_time(raw, "d2h", dev.device, m.amount);
      if (!h2d || !d2h) throw CalibrationError(where(raw, "overlap h2d_d2h needs h2d and d2h rows of the same size"));
      dev.bidirectional_ratio = m.median_s / (*h2d + *d2h);
      dev.measured_copy_engines = *dev.bidirectional_ratio < 0.75 ? 2 : 1;
    } else if (m.direction == "h2d_kernel") {
      auto kernel = overlap_time(raw, "kernel", dev.device, m.amount);
      if (!h2d || !kernel)
        throw CalibrationError(where(raw, "overlap h2d_kernel needs h2d and kernel rows of the same size"));
      dev.copy_kernel_ratio = m.median_s / (*h2d + *kernel);
    }
  }
}

}  // namespace

Calibration fit_calibration(const RawMeasurements& raw) {
  Calibration cal;
  std::set<int> devices;
  for (const auto& m : raw.rows) {
    if (m.src >= 0) devices.insert(m.src);
    if (m.dst >= 0) devices.insert(m.dst);
  }
  std::vector<double> memory_estimates;
  for (int d : devices) {
    std::string name = "device " + std::to_string(d);
    auto h2d = fit_copy(raw, "h2d", "pinned", -1, d, name + " h2d pinned");
    auto d2h = fit_copy(raw, "d2h", "pinned", d, -1, name + " d2h pinned");
    if (!h2d || !d2h)
      throw CalibrationError(where(raw, name + ": pinned h2d and d2h copies over at least two sizes are required"));
    DeviceCalibration dev;
    dev.device = d;
    dev.h2d = *h2d;
    dev.d2h = *d2h;
    dev.h2d_pageable = fit_copy(raw, "h2d", "pageable", -1, d, name + " h2d pageable");
    dev.d2h_pageable = fit_copy(raw, "d2h", "pageable", d, -1, name + " d2h pageable");
    // Eq. 9: slope = 2 / Memory BW + 1 / BW, with BW from the pinned fit.
    for (auto [pageable, pinned] : {std::pair{&dev.h2d_pageable, &dev.h2d}, std::pair{&dev.d2h_pageable, &dev.d2h}})
      if (*pageable && (*pageable)->line.slope > pinned->line.slope)
        memory_estimates.push_back(2.0 / ((*pageable)->line.slope - pinned->line.slope));
    dev.gap_h2d_s = fit_gap(raw, "h2d", d, dev.h2d, dev.gap_h2d_points);
    dev.gap_d2h_s = fit_gap(raw, "d2h", d, dev.d2h, dev.gap_d2h_points);
    dev.d2d = fit_copy(raw, "d2d", "device", d, d, name + " d2d");
    dev.peak_fp32 = best_rate(raw, "fma", "fp32", d);
    dev.peak_fp64 = best_rate(raw, "fma", "fp64", d);
    dev.dram_bw = best_rate(raw, "dram", "triad", d);
    fit_overlap(raw, dev);
    cal.devices.push_back(dev);
  }
  if (!memory_estimates.empty()) {
    std::sort(memory_estimates.begin(), memory_estimates.end());
    size_t n = memory_estimates.size();
    cal.host_mem_bw = n % 2 ? memory_estimates[n / 2] : (memory_estimates[n / 2 - 1] + memory_estimates[n / 2]) / 2;
    cal.host_mem_bw_fits = n;
  }
  std::set<std::tuple<int, int, std::string>> pairs;
  for (const auto& m : raw.rows)
    if (m.benchmark == "copy" && m.direction == "p2p") pairs.insert({m.src, m.dst, m.memory});
  for (const auto& [src, dst, memory] : pairs) {
    std::string label = "p2p " + std::to_string(src) + " -> " + std::to_string(dst) + " " + memory;
    auto fit = fit_copy(raw, "p2p", memory, src, dst, label);
    cal.peers.push_back({src, dst, memory == "peer_on", *fit});
  }
  return cal;
}

}  // namespace gpm::calibrate
