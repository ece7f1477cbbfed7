// fit_main.cpp: `calibrate-fit RAW.csv`: fits recorded calibration measurements and writes the machine file.
#include "tools/calibrate/fit.h"
#include "tools/calibrate/machine_writer.h"
#include "tools/calibrate/raw_csv.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <optional>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"Fits the raw measurements of tools/calibrate (docs/calibration.md) and writes a .gpm machine file."};
  std::string raw_path, name, output, launch_path;
  app.add_option("RAW", raw_path, "raw measurement CSV written by `calibrate` (format 1)")->required();
  app.add_option("--launch", launch_path, "launch costs CSV written by `calibrate-launch` (the GPU's kernel_issue)");
  app.add_option("--name", name, "machine name (default: from the GPU name)");
  app.add_option("-o,--output", output, "machine file to write (default: stdout)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    using namespace gpm::calibrate;
    RawMeasurements raw = read_raw(raw_path);
    Calibration cal = fit_calibration(raw);
    std::string id = machine_identifier(name.empty() ? raw.required("gpu") : name);
    std::optional<KernelIssue> issue;
    if (!launch_path.empty()) issue = read_launch(launch_path);
    std::string text = write_machine(raw, cal, id, raw_path, issue ? &*issue : nullptr);
    if (output.empty()) {
      std::cout << text;
    } else {
      std::ofstream out(output, std::ios::binary);
      if (!(out << text) || !out.flush()) throw CalibrationError(output + ": cannot write the file");
    }
  } catch (const std::exception& e) {
    std::cerr << "calibrate-fit: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
