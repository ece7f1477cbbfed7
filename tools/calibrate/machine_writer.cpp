// machine_writer.cpp: the .gpm machine file of a calibration: host links, peer links and a GPU type.
#include "tools/calibrate/machine_writer.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <cstdio>
#include <sstream>

namespace gpm::calibrate {

namespace {

// Six significant digits in the given unit: "2.41327 us".
std::string in_unit(double value, double unit, const char* name) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g %s", value / unit, name);
  return buffer;
}
std::string seconds(double s) { return in_unit(s, 1e-6, "us"); }
std::string rate(double bytes_per_s) { return in_unit(bytes_per_s, 1e9, "GB/s"); }
std::string flops(double flop_per_s) { return in_unit(flop_per_s, 1e12, "Tflop/s"); }
std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}
std::string bytes_text(double b) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.0f B", b);
  return buffer;
}

std::string describe(const CopyFit& fit) {
  std::ostringstream out;
  out << "eq. 10 fitted over " << fit.line.points << " sizes " << bytes_text(fit.line.min_x) << " .. "
      << bytes_text(fit.line.max_x) << " (relative least squares, max residual "
      << number(100 * fit.line.max_relative_residual) << "%)";
  return out.str();
}

std::string describe_latency(const CopyFit& fit) {
  if (fit.one_byte_s) return "the median one-byte copy (fit intercept " + seconds(fit.line.intercept) + ")";
  return "the fit intercept (no one-byte copy measured)";
}

// A metadata value that must be a whole number (it is written into the machine file as such).
std::optional<long long> whole_metadata(const RawMeasurements& raw, const std::string& key) {
  auto text = raw.optional(key);
  if (!text) return std::nullopt;
  long long value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0)
    throw CalibrationError(raw.file + ": metadata `" + key + "` must be a whole number >= 0, not `" + *text + "`");
  return value;
}

}  // namespace

std::string machine_identifier(const std::string& text) {
  std::string id;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0]))) id = "gpu_" + id;
  return id;
}

std::string write_machine(const RawMeasurements& raw, const Calibration& cal, const std::string& name,
                          const std::string& raw_path, const KernelIssue* issue) {
  const std::string& gpu = raw.required("gpu");
  if (issue && issue->gpu != gpu)
    throw CalibrationError(issue->file + ": launch costs of `" + issue->gpu + "`, but " + raw_path + " measured `" +
                           gpu + "`");
  const std::string measured =
      "measured by tools/calibrate on " + gpu + ", driver " + raw.required("driver") + ", " + raw.required("date");
  const std::string gpu_type = name + "_gpu";
  std::ostringstream out;
  out << "// " << name << ".gpm: machine file written by tools/calibrate from " << raw_path << " (docs/calibration.md).\n";
  out << "//\n// Every number below was " << measured << ".\n";
  if (auto source = raw.optional("source")) out << "// Source of the measurements: " << *source << "\n";
  if (issue) out << "// Kernel launch costs: " << issue->file << " (tools/calibrate/launch.cu).\n";
  out << "// Copies: AHEAD eq. 10 (pinned) and eq. 9 (pageable) fitted over sizes; gaps: van Werkhoven et al.\n"
      << "// section V (T = L+o + kG + g(n-1)); peaks: the best FMA and triad kernels.\n\n";

  out << "machine " << name << " {\n";
  for (const auto& dev : cal.devices) {
    std::string d = std::to_string(dev.device);
    out << "  // device " << d << ", pinned host copies; " << describe(dev.h2d) << "\n";
    out << "  param lo_h2d_" << d << " = " << seconds(dev.h2d.latency_s()) << "   // " << measured << "; "
        << describe_latency(dev.h2d) << "\n";
    out << "  param bw_h2d_" << d << " = " << rate(dev.h2d.bandwidth()) << "   // " << measured << "; 1 / slope\n";
    out << "  // device " << d << ", d2h: " << describe(dev.d2h) << "\n";
    out << "  param lo_d2h_" << d << " = " << seconds(dev.d2h.latency_s()) << "   // " << measured << "; "
        << describe_latency(dev.d2h) << "\n";
    out << "  param bw_d2h_" << d << " = " << rate(dev.d2h.bandwidth()) << "   // " << measured << "; 1 / slope\n";
    if (dev.gap_h2d_s)
      out << "  param gap_h2d_" << d << " = " << seconds(*dev.gap_h2d_s) << "   // " << measured << "; g over "
          << dev.gap_h2d_points << " split copies\n";
    if (dev.gap_d2h_s)
      out << "  param gap_d2h_" << d << " = " << seconds(*dev.gap_d2h_s) << "   // " << measured << "; g over "
          << dev.gap_d2h_points << " split copies\n";
  }
  out << "\n  node {\n";
  if (cal.host_mem_bw)
    out << "    memory host_mem { bw = " << rate(*cal.host_mem_bw) << " }   // " << measured
        << "; eq. 9: 2 / (pageable slope - pinned slope), median of " << cal.host_mem_bw_fits << " fits\n";
  else
    out << "    memory host_mem   // no bandwidth: no pageable copies were measured, so pageable copies need one\n";
  size_t count = cal.devices.empty() ? 0 : cal.devices.back().device + 1;
  out << "    gpu g[" << count << "] : " << gpu_type << "\n";
  for (const auto& dev : cal.devices) {
    std::string d = std::to_string(dev.device);
    out << "    link host_mem <-> g[" << d << "] {   // the whole host path, end to end as measured\n";
    out << "      bw_fwd = bw_h2d_" << d << ";  bw_rev = bw_d2h_" << d << "\n";
    out << "      latency_fwd = lo_h2d_" << d << ";  latency_rev = lo_d2h_" << d << "\n";
    if (dev.gap_h2d_s) out << "      gap_fwd = gap_h2d_" << d << "\n";
    if (dev.gap_d2h_s) out << "      gap_rev = gap_d2h_" << d << "\n";
    out << "    }\n";
  }
  for (const auto& peer : cal.peers) {
    std::string pair = std::to_string(peer.src) + " -> " + std::to_string(peer.dst);
    if (!peer.peer_access) {
      out << "    // p2p " << pair << " with peer access off: L+O " << seconds(peer.fit.latency_s()) << ", "
          << rate(peer.fit.bandwidth()) << " (staged through the host; no link models it)\n";
      continue;
    }
    out << "    link g[" << peer.src << "] -> g[" << peer.dst << "] { bw = " << rate(peer.fit.bandwidth())
        << "; latency = " << seconds(peer.fit.latency_s()) << " }   // " << measured << "; peer access on, "
        << describe(peer.fit) << "\n";
  }
  out << "  }\n}\n\n";

  // The GPU type: device 0's values (all devices are one model: the tool refuses mixed machines).
  const DeviceCalibration& first = cal.devices.front();
  out << "type " << gpu_type << " : gpu {\n";
  if (first.peak_fp64) out << "  peak_fp64 = " << flops(*first.peak_fp64) << "   // " << measured << "; FMA loop\n";
  if (first.peak_fp32) out << "  peak_fp32 = " << flops(*first.peak_fp32) << "   // " << measured << "; FMA loop\n";
  if (first.dram_bw)
    out << "  mem_bw = " << rate(*first.dram_bw) << "   // " << measured << "; triad kernel, bytes read + written\n";
  else if (first.d2d)
    out << "  mem_bw = " << rate(first.d2d->bandwidth()) << "   // " << measured
        << "; no triad kernel measured: the d2d copy fit (bytes copied / time)\n";
  if (first.d2d)
    out << "  d2d_latency = " << seconds(first.d2d->latency_s()) << "   // " << measured << "; "
        << describe_latency(*first.d2d) << ", " << describe(*first.d2d) << ", bandwidth "
        << rate(first.d2d->bandwidth()) << "\n";
  if (issue)
    out << "  kernel_issue = " << seconds(issue->seconds) << "   // measured by tools/calibrate/launch.cu on " << issue->gpu
        << (issue->driver.empty() ? "" : ", driver " + issue->driver) << " (" << issue->file << " line "
        << issue->line << "); kernel_batch " << issue->what << ": median over " << issue->reps
        << " batches of the time per launch of empty kernels launched back to back until all have run\n";
  const auto engines = whole_metadata(raw, "async_engine_count");
  if (first.measured_copy_engines)
    out << "  copy_engines = " << *first.measured_copy_engines << "   // " << measured
        << "; h2d and d2h together take " << number(100 * *first.bidirectional_ratio)
        << "% of their sum (2 below 75%)"
        << (engines ? "; asyncEngineCount " + std::to_string(*engines) : "") << "\n";
  else if (engines)
    out << "  copy_engines = " << (*engines >= 2 ? 2 : *engines) << "   // " << measured
        << "; cudaDeviceProp.asyncEngineCount " << *engines << " (not checked by an overlap measurement)\n";
  if (first.copy_kernel_ratio)
    out << "  // an h2d copy and a kernel together take " << number(100 * *first.copy_kernel_ratio)
        << "% of their sum\n";
  if (auto sms = whole_metadata(raw, "sms"))
    out << "  sms = " << *sms << "   // " << measured << "; cudaDeviceProp.multiProcessorCount\n";
  if (auto size = whole_metadata(raw, "mem_size_bytes"); size && *size > 0)
    out << "  mem_size = " << *size << " B   // " << measured << "; cudaDeviceProp.totalGlobalMem\n";
  out << "}\n";
  return out.str();
}

}  // namespace gpm::calibrate
