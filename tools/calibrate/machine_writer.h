// machine_writer.h: writes a checkable .gpm machine file from a fitted calibration (docs/calibration.md).
#pragma once

#include "tools/calibrate/fit.h"
#include "tools/calibrate/raw_csv.h"

#include <string>

namespace gpm::calibrate {

// A .gpm identifier made from free text: lower case, runs of other characters as `_`, a leading letter.
std::string machine_identifier(const std::string& text);

// The machine file: host memory, one GPU per calibrated device, a link from host memory to each GPU with the
// fitted L+O, bandwidth and gap per direction, a link per measured peer-enabled GPU pair, and a GPU type with
// the measured peaks, DRAM bandwidth, d2d L+O and copy engines, and the kernel issue time when `issue` is given
// (launch.cu's CSV of the same GPU; another GPU is a CalibrationError). Every number's comment says
// "measured by tools/calibrate on <gpu>, driver <driver>, <date>" (launch.cu's: its file and row) and how it was
// obtained.
std::string write_machine(const RawMeasurements& raw, const Calibration& cal, const std::string& name,
                          const std::string& raw_path, const KernelIssue* issue = nullptr);

}  // namespace gpm::calibrate
