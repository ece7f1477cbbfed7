// calibrate_test.cpp: tools/calibrate's plain C++ part: the raw CSV, the fits and the machine writer, and a
// recorded calibration (published V100-PCIe bandwidthTest rows) parsed back into a machine gpmc accepts.
#include <doctest/doctest.h>

#include "tools/calibrate/fit.h"
#include "tools/calibrate/machine_writer.h"
#include "tools/calibrate/raw_csv.h"
#include "tests/unit/test_support.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace gpm::calibrate;
namespace fs = std::filesystem;

namespace {

const std::string kRoot = GPM_SOURCE_DIR;
const std::string kFixture = kRoot + "/tests/calibrate/v100_pcie_bandwidthtest_raw.csv";

std::string raw_text(const std::string& rows) {
  return std::string("# gpu: Test GPU\n# driver: 1.0\n# date: 2026-01-01\n") + kRawHeader + "\n" + rows;
}

std::string parse_error(const std::string& text) {
  try {
    parse_raw(text, "t.csv");
  } catch (const CalibrationError& e) {
    return e.what();
  }
  return "";
}

// Weighted least squares (w = 1/y^2) from the raw normal equations, written independently of fit.cpp.
std::pair<double, double> direct_fit(const std::vector<std::pair<double, double>>& points) {
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : points) {
    double w = 1 / (y * y);
    s += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  double slope = (s * sxy - sx * sy) / (s * sxx - sx * sx);
  return {(sy - slope * sx) / s, slope};
}

// The fixture's rows of one direction, read with a plain split (not raw_csv.cpp).
std::vector<std::pair<double, double>> fixture_points(const std::string& direction) {
  std::ifstream in(kFixture);
  std::string line;
  std::vector<std::pair<double, double>> points;
  while (std::getline(in, line)) {
    if (line.rfind("copy," + direction + ",", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string c; std::getline(s, c, ',');) cells.push_back(c);
    points.push_back({std::stod(cells[6]), std::stod(cells[8])});
  }
  return points;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe);
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  int status = pclose(pipe);
  out += "\nexit " + std::to_string(WEXITSTATUS(status));
  return out;
}

}  // namespace

TEST_CASE("calibrate: the raw CSV round-trips through format_raw and parse_raw") {
  RawMeasurements raw = parse_raw(raw_text("copy,h2d,pinned,host,0,1,1,20,2e-06,1.5e-06,3e-06\n"
                                           "copy,p2p,peer_on,0,1,4,4096,20,3e-06,3e-06,3e-06\n"
                                           "fma,fp64,device,1,1,1,1e12,5,0.1,0.1,0.2\n"),
                                  "t.csv");
  REQUIRE(raw.rows.size() == 3);
  CHECK(raw.rows[0].src == -1);
  CHECK(raw.rows[1].streams == 4);
  CHECK(raw.metadata.at("gpu") == "Test GPU");
  RawMeasurements again = parse_raw(format_raw(raw), "again.csv");
  REQUIRE(again.rows.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(again.rows[i].median_s == raw.rows[i].median_s);
    CHECK(again.rows[i].amount == raw.rows[i].amount);
    CHECK(again.rows[i].dst == raw.rows[i].dst);
  }
  CHECK(format_raw(again) == format_raw(raw));
}

TEST_CASE("calibrate: malformed raw files are errors that name the line") {
  CHECK(parse_error("# gpu: x\nbytes,measured_s\n").find("t.csv:2: the header must be") == 0);
  CHECK(parse_error(raw_text("")).find("no measurement rows") != std::string::npos);
  CHECK(parse_error(raw_text("copy,h2d,pinned,host,0,1,1,20,2e-06,1e-06\n")).find("t.csv:5: expected 11 cells") == 0);
  CHECK(parse_error(raw_text("copy,h2x,pinned,host,0,1,1,20,2e-06,1e-06,3e-06\n")).find("unknown measurement") !=
        std::string::npos);
  CHECK(parse_error(raw_text("copy,h2d,pinned,0,host,1,1,20,2e-06,1e-06,3e-06\n")).find("`host` must be") !=
        std::string::npos);
  CHECK(parse_error(raw_text("copy,h2d,pinned,host,0,1,abc,20,2e-06,1e-06,3e-06\n")).find("column `amount`") !=
        std::string::npos);
  CHECK(parse_error(raw_text("copy,h2d,pinned,host,0,1,1,20,2e-06,3e-06,3e-06\n")).find("min_s <= median_s") !=
        std::string::npos);
  CHECK(parse_error(raw_text("copy,p2p,peer_on,1,1,1,1,20,2e-06,1e-06,3e-06\n")).find("two different devices") !=
        std::string::npos);
  CHECK(parse_error("# format: 2\n# gpu: a\n" + std::string(kRawHeader) + "\ndram,triad,device,0,0,1,8,1,1,1,1\n")
            .find("format `2` is not 1") != std::string::npos);
}

TEST_CASE("calibrate: relative least squares recovers an exact line and rejects degenerate input") {
  std::vector<double> x{1, 1e3, 1e6, 1e9}, y;
  for (double v : x) y.push_back(5e-6 + v / 12e9);
  LineFit fit = fit_relative_least_squares(x, y);
  CHECK(fit.intercept == gpm::test::approx(5e-6));
  CHECK(fit.slope == gpm::test::approx(1 / 12e9));
  CHECK(fit.max_relative_residual < 1e-12);
  CHECK_THROWS_AS(fit_relative_least_squares({1, 1}, {1, 2}), CalibrationError);
  CHECK_THROWS_AS(fit_relative_least_squares({1}, {1}), CalibrationError);
}

TEST_CASE("calibrate: fits of the gap, pageable memory, peers, peaks and copy engines") {
  // Synthetic rows from known parameters: L+O 10 us, 10 GB/s pinned, host memory 40 GB/s (eq. 9: pageable
  // slope 1/10 + 2/40 per GB), g = 3 us, peer 20 GB/s after 2 us, 2 copy engines.
  std::ostringstream rows;
  auto row = [&](const std::string& kind, const std::string& ends, double streams, double n, double t) {
    rows << kind << "," << ends << "," << streams << "," << n << ",10," << t << "," << t << "," << t << "\n";
  };
  for (double n : {1.0, 1e4, 1e6, 1e8}) {
    row("copy,h2d,pinned", "host,0", 1, n, 10e-6 + n / 10e9);
    row("copy,d2h,pinned", "0,host", 1, n, 10e-6 + n / 10e9);
    row("copy,h2d,pageable", "host,0", 1, n, 10e-6 + n / 10e9 + 2 * n / 40e9);
    row("copy,p2p,peer_on", "0,1", 1, n, 2e-6 + n / 20e9);
    row("copy,h2d,pinned", "host,1", 1, n, 10e-6 + n / 10e9);
    row("copy,d2h,pinned", "1,host", 1, n, 10e-6 + n / 10e9);
  }
  for (double s : {2.0, 8.0, 32.0}) row("copy,h2d,pinned", "host,0", s, 16e6, 10e-6 + 16e6 / 10e9 + 3e-6 * (s - 1));
  row("overlap,h2d,pinned", "0,0", 1, 1e8, 0.01);
  row("overlap,d2h,pinned", "0,0", 1, 1e8, 0.01);
  row("overlap,h2d_d2h,pinned", "0,0", 2, 1e8, 0.0105);
  row("fma,fp32,device", "0,0", 1, 1e12, 0.05);
  row("fma,fp32,device", "0,0", 1, 1e12, 0.04);
  row("dram,triad,device", "0,0", 1, 3e9, 0.002);
  RawMeasurements raw = parse_raw(raw_text(rows.str()), "synthetic.csv");
  Calibration cal = fit_calibration(raw);
  REQUIRE(cal.devices.size() == 2);
  const DeviceCalibration& d0 = cal.devices[0];
  CHECK(d0.h2d.latency_s() == gpm::test::approx(10e-6 + 1 / 10e9));   // the one-byte row, as AHEAD measures L+O
  CHECK(d0.h2d.bandwidth() == gpm::test::approx(10e9));
  REQUIRE(d0.gap_h2d_s);
  CHECK(*d0.gap_h2d_s == gpm::test::approx(3e-6));
  CHECK(d0.gap_h2d_points == 3);
  CHECK_FALSE(d0.gap_d2h_s);
  REQUIRE(cal.host_mem_bw);
  CHECK(*cal.host_mem_bw == doctest::Approx(40e9).epsilon(1e-6));
  REQUIRE(cal.peers.size() == 1);
  CHECK(cal.peers[0].fit.bandwidth() == gpm::test::approx(20e9));
  CHECK(cal.peers[0].fit.latency_s() == gpm::test::approx(2e-6 + 1 / 20e9));
  CHECK(*d0.peak_fp32 == gpm::test::approx(25e12));
  CHECK(*d0.dram_bw == gpm::test::approx(1.5e12));
  CHECK(d0.measured_copy_engines == 2);
  std::string gpm = write_machine(raw, cal, machine_identifier("Test GPU"), "synthetic.csv");
  CHECK(gpm.find("machine test_gpu {") != std::string::npos);
  CHECK(gpm.find("link g[0] -> g[1] { bw = 20 GB/s; latency = 2.00005 us }") != std::string::npos);
  CHECK(gpm.find("copy_engines = 2") != std::string::npos);
  CHECK(gpm.find("memory host_mem { bw = 40 GB/s }") != std::string::npos);
  // Missing host copies for a device, and a copy that does not grow with the size, are errors.
  CHECK_THROWS_WITH_AS(fit_calibration(parse_raw(raw_text("copy,p2p,peer_on,0,1,1,1,1,1e-6,1e-6,1e-6\n"), "p.csv")),
                       doctest::Contains("pinned h2d and d2h copies"), CalibrationError);
  CHECK_THROWS_WITH_AS(fit_calibration(parse_raw(raw_text("copy,h2d,pinned,host,0,1,1,1,2e-6,2e-6,2e-6\n"
                                                          "copy,h2d,pinned,host,0,1,9,1,1e-6,1e-6,1e-6\n"),
                                                 "s.csv")),
                       doctest::Contains("slope <= 0"), CalibrationError);
}

TEST_CASE("calibrate: launch costs give the GPU's kernel_issue, from the kernel_batch row of one block per SM") {
  const std::string head = std::string("# gpu: Test GPU\n# driver: 13000\n# sms: 4\n") + kLaunchHeader + "\n";
  const std::string rows = "kernel_issue,grid1,1,0,30,3.9e-06,3.7e-06,4.5e-06\n"
                           "kernel_batch,grid1,1,0,30,4.0e-06,3.7e-06,4.5e-06\n"
                           "kernel_batch,grid4,1,0,30,3.5e-06,3.2e-06,4.0e-06\n"
                           "nccl_allreduce_iter,comms1,1,8,30,6.3e-06,6.0e-06,7.6e-06\n";
  KernelIssue k = parse_launch(head + rows, "l.csv");
  CHECK(k.seconds == 3.5e-06);
  CHECK(k.what == "grid4");
  CHECK(k.line == 7);
  CHECK(k.gpu == "Test GPU");
  // Without `sms`, the largest grid.
  CHECK(parse_launch(std::string("# gpu: Test GPU\n") + kLaunchHeader + "\n" + rows, "l.csv").what == "grid4");
  auto error = [](const std::string& text) {
    try {
      parse_launch(text, "l.csv");
    } catch (const CalibrationError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("# gpu: x\nbenchmark,what\n").find("l.csv:2: the header must be") == 0);
  CHECK(error(head + "kernel_batch,grid4,1,0,30,3e-06\n").find("l.csv:5: expected 8 cells") == 0);
  CHECK(error(head + "kernel_batch,grid4,1,0,30,3e-06,4e-06,5e-06\n").find("min_s <= median_s") != std::string::npos);
  CHECK(error(head + "kernel_batch,blocks,1,0,30,3e-06,2e-06,5e-06\n").find("`grid<blocks>`") != std::string::npos);
  CHECK(error(head + "kernel_batch,grid1,1,0,30,3e-06,2e-06,5e-06\n").find("no kernel_batch row of one block per SM") !=
        std::string::npos);
  CHECK(error(std::string(kLaunchHeader) + "\n" + rows).find("`# gpu: ...` is missing") != std::string::npos);
  // Written into the GPU type, with its source; launch costs of another GPU are refused.
  RawMeasurements raw = parse_raw(raw_text("copy,h2d,pinned,host,0,1,1,1,2e-6,2e-6,2e-6\n"
                                           "copy,h2d,pinned,host,0,1,1e6,1,5e-5,5e-5,5e-5\n"
                                           "copy,d2h,pinned,0,host,1,1,1,2e-6,2e-6,2e-6\n"
                                           "copy,d2h,pinned,0,host,1,1e6,1,5e-5,5e-5,5e-5\n"),
                                  "r.csv");
  Calibration cal = fit_calibration(raw);
  std::string gpm = write_machine(raw, cal, "test_gpu", "r.csv", &k);
  CHECK(gpm.find("// Kernel launch costs: l.csv (tools/calibrate/launch.cu).") != std::string::npos);
  CHECK(gpm.find("  kernel_issue = 3.5 us   // measured by tools/calibrate/launch.cu on Test GPU, driver 13000 (l.csv "
                 "line 7); kernel_batch grid4") != std::string::npos);
  k.gpu = "Other GPU";
  CHECK_THROWS_WITH_AS(write_machine(raw, cal, "test_gpu", "r.csv", &k), doctest::Contains("launch costs of `Other GPU`"),
                       CalibrationError);
}

TEST_CASE("calibrate: machine identifiers are .gpm names") {
  CHECK(machine_identifier("Tesla V100-PCIE-32GB") == "tesla_v100_pcie_32gb");
  CHECK(machine_identifier("4090 (x8)") == "gpu_4090_x8");
  CHECK(machine_identifier("--") == "gpu_");
}

TEST_CASE("calibrate: a recorded calibration (V100-PCIe bandwidthTest rows) becomes a machine gpmc accepts") {
  RawMeasurements raw = read_raw(kFixture);
  Calibration cal = fit_calibration(raw);
  REQUIRE(cal.devices.size() == 1);
  // The fitter against a direct least-squares computation on the same rows: agreement to 1e-6 (the direct
  // normal equations are uncentred doubles; the fitter uses centred long doubles).
  for (auto [direction, fit] : {std::pair{"h2d", cal.devices[0].h2d}, std::pair{"d2h", cal.devices[0].d2h}}) {
    auto points = fixture_points(direction);
    REQUIRE(points.size() == 81);
    auto [intercept, slope] = direct_fit(points);
    CHECK(fit.line.intercept == doctest::Approx(intercept).epsilon(1e-6).scale(0));
    CHECK(fit.bandwidth() == doctest::Approx(1 / slope).epsilon(1e-6).scale(0));
    CHECK_FALSE(fit.one_byte_s);   // the shmoo starts at 1,000 bytes: L+O is the intercept
  }
  REQUIRE(cal.devices[0].d2d);

  fs::path dir = fs::temp_directory_path() / ("gpm_calibrate_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string machine = (dir / "v100_fixture.gpm").string();
  std::string out = run(std::string(CALIBRATE_FIT_PATH) + " " + kFixture + " --name v100_fixture -o " + machine);
  REQUIRE_MESSAGE(out == "\nexit 0", out);
  std::string text = gpm::test::read_file(machine);
  CHECK(text.find("measured by tools/calibrate on Tesla V100-PCIE-32GB, driver not printed") != std::string::npos);
  out = run(std::string(GPMC_PATH) + " check " + machine + " " + kRoot + "/apps/bandwidth.gpm");
  CHECK_MESSAGE(out == "\nexit 0", out);
  // gpmc eval of a 1 MB pinned h2d copy on the emitted machine is eq. 10 with the fitted L+O and bandwidth
  // (the file rounds them to six significant digits).
  out = run(std::string(GPMC_PATH) + " eval " + machine + " " + kRoot +
            "/apps/bandwidth.gpm --set bytes=1000000B --format json");
  auto json = nlohmann::json::parse(out.substr(0, out.rfind("\nexit")));
  const CopyFit& h2d = cal.devices[0].h2d;
  CHECK(json["total_s"].get<double>() ==
        doctest::Approx(h2d.latency_s() + 1e6 / h2d.bandwidth()).epsilon(1e-5).scale(0));
  // A malformed raw file: a clear error and exit status 1.
  std::string bad = (dir / "bad.csv").string();
  std::ofstream(bad) << "# gpu: x\nnot,a,header\n";
  out = run(std::string(CALIBRATE_FIT_PATH) + " " + bad);
  CHECK(out.find("calibrate-fit: error: " + bad + ":2: the header must be") == 0);
  CHECK(out.find("exit 1") != std::string::npos);
  fs::remove_all(dir);
}
