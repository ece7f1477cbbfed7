// raw_csv.cpp: reads and writes the raw measurement CSV of tools/calibrate (format 1, docs/calibration.md).
#include "tools/calibrate/raw_csv.h"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace gpm::calibrate {

const char* const kRawHeader = "benchmark,direction,memory,src,dst,streams,amount,reps,median_s,min_s,max_s";
const char* const kLaunchHeader = "benchmark,what,count,bytes,reps,median_s,min_s,max_s";

namespace {

const std::set<std::string> kMetadataKeys = {
    "format", "gpu", "driver", "runtime", "date", "devices", "compute_capability", "sms", "mem_size_bytes",
    "async_engine_count", "source"};

// Which (benchmark, direction, memory) triples a row may have.
bool valid_kind(const Measurement& m) {
  static const std::set<std::array<std::string, 3>> kinds = {
      {"copy", "h2d", "pinned"},      {"copy", "h2d", "pageable"},       {"copy", "d2h", "pinned"},
      {"copy", "d2h", "pageable"},    {"copy", "d2d", "device"},         {"copy", "p2p", "peer_on"},
      {"copy", "p2p", "peer_off"},    {"overlap", "h2d", "pinned"},      {"overlap", "d2h", "pinned"},
      {"overlap", "kernel", "device"}, {"overlap", "h2d_d2h", "pinned"}, {"overlap", "h2d_kernel", "pinned"},
      {"fma", "fp32", "device"},      {"fma", "fp64", "device"},         {"dram", "triad", "device"}};
  return kinds.count({m.benchmark, m.direction, m.memory}) != 0;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

// Each line of `text` that is not blank, numbered from 1, without a trailing carriage return: fn(number, line).
template <class Fn>
void each_line(const std::string& text, Fn fn) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!trim(line).empty()) fn(number, line);
  }
}

// A `# key: value` line's key and value (an empty key when the comment has no colon).
std::pair<std::string, std::string> comment_entry(const std::string& line) {
  std::string body = trim(line.substr(1));
  size_t colon = body.find(':');
  if (colon == std::string::npos) return {"", body};
  return {trim(body.substr(0, colon)), trim(body.substr(colon + 1))};
}

[[noreturn]] void fail(const std::string& file, int line, const std::string& message) {
  throw CalibrationError(file + ":" + std::to_string(line) + ": " + message);
}

double parse_number(const std::string& cell, const std::string& column, const std::string& file, int line) {
  double value = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(value))
    fail(file, line, "column `" + column + "`: `" + cell + "` is not a finite number");
  return value;
}

long long parse_whole(const std::string& cell, const std::string& column, const std::string& file, int line) {
  long long value = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size())
    fail(file, line, "column `" + column + "`: `" + cell + "` is not a whole number");
  return value;
}

// A device number, or `host` (-1).
int parse_endpoint(const std::string& cell, const std::string& column, const std::string& file, int line) {
  if (cell == "host") return -1;
  long long value = parse_whole(cell, column, file, line);
  if (value < 0 || value > 1023) fail(file, line, "column `" + column + "`: `" + cell + "` is not `host` or a device 0..1023");
  return static_cast<int>(value);
}

std::string shortest(double value) {
  std::array<char, 64> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), end);
}

std::string endpoint_text(int endpoint) { return endpoint < 0 ? "host" : std::to_string(endpoint); }

}  // namespace

bool is_metadata_key(const std::string& key) { return kMetadataKeys.count(key) != 0; }

const std::string& RawMeasurements::required(const std::string& key) const {
  auto it = metadata.find(key);
  if (it == metadata.end() || it->second.empty())
    throw CalibrationError(file + ": the metadata line `# " + key + ": ...` is missing");
  return it->second;
}

std::optional<std::string> RawMeasurements::optional(const std::string& key) const {
  auto it = metadata.find(key);
  if (it == metadata.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

RawMeasurements parse_raw(const std::string& text, const std::string& file) {
  RawMeasurements raw;
  raw.file = file;
  bool header_seen = false;
  each_line(text, [&](int number, const std::string& line) {
    if (line[0] == '#') {
      auto [key, value] = comment_entry(line);
      if (!header_seen && is_metadata_key(key)) {
        if (raw.metadata.count(key)) fail(file, number, "metadata `" + key + "` given twice");
        raw.metadata[key] = value;
      } else {
        raw.comments.push_back(trim(line.substr(1)));
      }
      return;
    }
    if (!header_seen) {
      if (trim(line) != kRawHeader)
        fail(file, number, std::string("the header must be `") + kRawHeader + "`");
      header_seen = true;
      return;
    }
    std::vector<std::string> cells = split_commas(line);
    if (cells.size() != 11) fail(file, number, "expected 11 cells, found " + std::to_string(cells.size()));
    Measurement m;
    m.line = number;
    m.benchmark = cells[0];
    m.direction = cells[1];
    m.memory = cells[2];
    if (!valid_kind(m))
      fail(file, number, "unknown measurement `" + m.benchmark + "," + m.direction + "," + m.memory + "`");
    m.src = parse_endpoint(cells[3], "src", file, number);
    m.dst = parse_endpoint(cells[4], "dst", file, number);
    bool from_host = m.benchmark == "copy" && m.direction == "h2d";
    bool to_host = m.benchmark == "copy" && m.direction == "d2h";
    if ((m.src < 0) != from_host || (m.dst < 0) != to_host)
      fail(file, number, "`host` must be the source of an h2d copy and the destination of a d2h copy, nowhere else");
    if (m.benchmark == "copy" && m.direction == "p2p" && m.src == m.dst)
      fail(file, number, "a p2p copy needs two different devices");
    if (m.benchmark != "copy" || m.direction != "p2p")
      if (m.src >= 0 && m.dst >= 0 && m.src != m.dst) fail(file, number, "src and dst must be the same device here");
    m.streams = parse_whole(cells[5], "streams", file, number);
    if (m.streams < 1 || m.streams > 4096) fail(file, number, "column `streams`: must be 1..4096");
    m.amount = parse_number(cells[6], "amount", file, number);
    if (m.amount <= 0) fail(file, number, "column `amount`: must be > 0");
    m.reps = parse_whole(cells[7], "reps", file, number);
    if (m.reps < 1) fail(file, number, "column `reps`: must be >= 1");
    m.median_s = parse_number(cells[8], "median_s", file, number);
    m.min_s = parse_number(cells[9], "min_s", file, number);
    m.max_s = parse_number(cells[10], "max_s", file, number);
    if (m.median_s <= 0 || m.min_s <= 0 || m.max_s <= 0) fail(file, number, "times must be > 0 seconds");
    if (m.min_s > m.median_s || m.median_s > m.max_s) fail(file, number, "times must satisfy min_s <= median_s <= max_s");
    raw.rows.push_back(m);
  });
  if (!header_seen) throw CalibrationError(file + ": no header line `" + kRawHeader + "`");
  if (raw.rows.empty()) throw CalibrationError(file + ": no measurement rows");
  if (auto format = raw.optional("format"); format && *format != "1")
    throw CalibrationError(file + ": format `" + *format + "` is not 1");
  return raw;
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CalibrationError(path + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (64u << 20)) throw CalibrationError(path + ": larger than 64 MiB");
  return text.str();
}

}  // namespace

RawMeasurements read_raw(const std::string& path) { return parse_raw(read_text(path), path); }

KernelIssue parse_launch(const std::string& text, const std::string& file) {
  std::map<std::string, std::string> meta;
  std::vector<KernelIssue> batches;
  bool header_seen = false;
  each_line(text, [&](int number, const std::string& line) {
    if (line[0] == '#') {
      auto [key, value] = comment_entry(line);
      if (!header_seen && !key.empty()) meta[key] = value;
      return;
    }
    if (!header_seen) {
      if (trim(line) != kLaunchHeader) fail(file, number, std::string("the header must be `") + kLaunchHeader + "`");
      header_seen = true;
      return;
    }
    std::vector<std::string> cells = split_commas(line);
    if (cells.size() != 8) fail(file, number, "expected 8 cells, found " + std::to_string(cells.size()));
    if (cells[0].empty() || cells[1].empty()) fail(file, number, "the benchmark and what columns must not be empty");
    long long count = parse_whole(cells[2], "count", file, number);
    parse_number(cells[3], "bytes", file, number);
    long long reps = parse_whole(cells[4], "reps", file, number);
    double median = parse_number(cells[5], "median_s", file, number);
    double low = parse_number(cells[6], "min_s", file, number);
    double high = parse_number(cells[7], "max_s", file, number);
    if (count < 1 || reps < 1) fail(file, number, "count and reps must be >= 1");
    if (median <= 0 || low <= 0 || high <= 0) fail(file, number, "times must be > 0 seconds");
    if (low > median || median > high) fail(file, number, "times must satisfy min_s <= median_s <= max_s");
    if (cells[0] != "kernel_batch") return;
    if (cells[1].rfind("grid", 0) != 0) fail(file, number, "a kernel_batch row's `what` must be `grid<blocks>`");
    parse_whole(cells[1].substr(4), "what", file, number);
    batches.push_back({median, cells[1], reps, number, {}, {}, file});
  });
  if (!header_seen) throw CalibrationError(file + ": no header line `" + kLaunchHeader + "`");
  auto gpu = meta.find("gpu");
  if (gpu == meta.end() || gpu->second.empty())
    throw CalibrationError(file + ": the metadata line `# gpu: ...` is missing");
  // One block per SM where the file says how many SMs; else the largest grid.
  auto blocks = [](const KernelIssue& k) { return std::stoll(k.what.substr(4)); };
  const KernelIssue* chosen = nullptr;
  auto sms = meta.find("sms");
  for (const KernelIssue& k : batches) {
    if (sms != meta.end() ? k.what == "grid" + sms->second : (!chosen || blocks(k) > blocks(*chosen))) chosen = &k;
  }
  if (!chosen)
    throw CalibrationError(file + ": no kernel_batch row" +
                           (sms != meta.end() ? " of one block per SM (`grid" + sms->second + "`)" : std::string()));
  KernelIssue out = *chosen;
  out.gpu = gpu->second;
  if (auto driver = meta.find("driver"); driver != meta.end()) out.driver = driver->second;
  return out;
}

KernelIssue read_launch(const std::string& path) { return parse_launch(read_text(path), path); }

std::string format_raw(const RawMeasurements& raw) {
  std::ostringstream out;
  out << "# format: 1\n";
  for (const auto& [key, value] : raw.metadata)
    if (key != "format") out << "# " << key << ": " << value << "\n";
  for (const auto& comment : raw.comments) out << "# " << comment << "\n";
  out << kRawHeader << "\n";
  for (const auto& m : raw.rows)
    out << m.benchmark << ',' << m.direction << ',' << m.memory << ',' << endpoint_text(m.src) << ','
        << endpoint_text(m.dst) << ',' << m.streams << ',' << shortest(m.amount) << ',' << m.reps << ','
        << shortest(m.median_s) << ',' << shortest(m.min_s) << ',' << shortest(m.max_s) << "\n";
  return out.str();
}

}  // namespace gpm::calibrate
