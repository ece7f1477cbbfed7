// units.cpp: the unit table (decimal and binary prefixes) and dimension formatting.
#include "support/units.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace gpm::support {
namespace {

// A unit's factor to base units is num / den; fractions keep a denominator so that `10 us` converts as
// 10 / 1e6, the correctly rounded 1e-05, rather than 10 * 1e-6.
struct UnitEntry {
  const char* word;
  double num;
  Dim dim;
  double den = 1;
};

// Decimal prefixes are powers of 1000, binary ones powers of 1024 (1 KB = 1000 B, 1 KiB = 1024 B).
// A transfer (T, as in GT/s) and hertz are counts per unit; a bit (b) is 1/8 byte.
constexpr double Ki = 1024.0, Mi = Ki * Ki, Gi = Mi * Ki, Ti = Gi * Ki, Pi = Ti * Ki;
const UnitEntry kUnits[] = {
    {"s", 1, Dim::seconds()},       {"ms", 1, Dim::seconds(), 1e3},     {"us", 1, Dim::seconds(), 1e6},
    {"ns", 1, Dim::seconds(), 1e9},   {"ps", 1, Dim::seconds(), 1e12},    {"B", 1, Dim::byte()},
    {"kB", 1e3, Dim::byte()},       {"KB", 1e3, Dim::byte()},         {"MB", 1e6, Dim::byte()},
    {"GB", 1e9, Dim::byte()},       {"TB", 1e12, Dim::byte()},        {"PB", 1e15, Dim::byte()},
    {"KiB", Ki, Dim::byte()},       {"MiB", Mi, Dim::byte()},         {"GiB", Gi, Dim::byte()},
    {"TiB", Ti, Dim::byte()},       {"PiB", Pi, Dim::byte()},         {"b", 1, Dim::byte(), 8},
    {"Kb", 125, Dim::byte()},       {"Mb", 125e3, Dim::byte()},       {"Gb", 125e6, Dim::byte()},
    {"Tb", 125e9, Dim::byte()},     {"flop", 1, Dim::flop()},         {"Kflop", 1e3, Dim::flop()},
    {"Mflop", 1e6, Dim::flop()},    {"Gflop", 1e9, Dim::flop()},      {"Tflop", 1e12, Dim::flop()},
    {"Pflop", 1e15, Dim::flop()},   {"T", 1, Dim::count()},           {"KT", 1e3, Dim::count()},
    {"MT", 1e6, Dim::count()},      {"GT", 1e9, Dim::count()},        {"Hz", 1, Dim{-1, 0, 0}},
    {"kHz", 1e3, Dim{-1, 0, 0}},    {"MHz", 1e6, Dim{-1, 0, 0}},      {"GHz", 1e9, Dim{-1, 0, 0}},
    {"Ki", Ki, Dim::count()},       {"Mi", Mi, Dim::count()},         {"Gi", Gi, Dim::count()},
};

const UnitEntry* find_word(std::string_view word) {
  for (const auto& entry : kUnits)
    if (word == entry.word) return &entry;
  return nullptr;
}

}  // namespace

bool is_unit_word(std::string_view word) { return find_word(word) != nullptr; }

const char* const* unit_words(size_t* count) {
  static const char* words[sizeof(kUnits) / sizeof(kUnits[0])];
  for (size_t i = 0; i < std::size(kUnits); ++i) words[i] = kUnits[i].word;
  *count = std::size(kUnits);
  return words;
}

std::optional<Unit> parse_unit(std::string_view text) {
  Unit unit;
  bool first = true;
  while (true) {
    size_t slash = text.find('/');
    std::string_view word = text.substr(0, slash);
    const UnitEntry* entry = find_word(word);
    if (!entry) return std::nullopt;
    if (first) {
      unit = {entry->num / entry->den, entry->dim, entry->num, entry->den};
      first = false;
    } else {
      unit.num *= entry->den;
      unit.den *= entry->num;
      unit.scale = unit.num / unit.den;
      unit.dim = unit.dim / entry->dim;
    }
    if (slash == std::string_view::npos) return unit;
    text.remove_prefix(slash + 1);
  }
}

std::optional<Dim> dimension_named(std::string_view name) {
  if (name == "time") return Dim::seconds();
  if (name == "bytes" || name == "byte") return Dim::byte();
  if (name == "flops" || name == "flop") return Dim::flop();
  if (name == "count") return Dim::count();
  return std::nullopt;
}

std::string dim_name(Dim dim) {
  if (dim.is_count()) return "count";
  std::string num, den;
  auto add = [](std::string& s, const char* name, int exp) {
    if (exp == 0) return;
    if (!s.empty()) s += '*';
    s += name;
    if (std::abs(exp) != 1) s += fmt::format("^{}", std::abs(exp));
  };
  auto side = [&](int exp, const char* name) { add(exp > 0 ? num : den, name, exp); };
  side(dim.flops, "flops");
  side(dim.bytes, "bytes");
  side(dim.time, "time");
  if (num.empty()) num.push_back('1');  // (assigning "1" trips a false GCC 12 -Wrestrict warning)
  return den.empty() ? num : fmt::format("{}/{}", num, den.find('*') != std::string::npos ? "(" + den + ")" : den);
}

namespace {
// Picks the largest decimal prefix that keeps the mantissa >= 1.
std::string scaled(double value, const char* const* names, const double* scales, size_t n) {
  double mag = std::fabs(value);
  size_t pick = 0;
  for (size_t i = 0; i < n; ++i)
    if (mag >= scales[i] * (1 - 1e-12)) pick = i;
  return fmt::format("{:.6g} {}", value / scales[pick], names[pick]);
}
}  // namespace

std::string format_quantity(double v, Dim dim) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  if (dim == Dim::seconds()) {
    static const char* n[] = {"ps", "ns", "us", "ms", "s"};
    static const double s[] = {1e-12, 1e-9, 1e-6, 1e-3, 1};
    if (v == 0) return "0 s";
    return scaled(v, n, s, 5);
  }
  if (dim == Dim::byte()) {
    // Whole multiples of a power of 1024 read better in binary units (1 GiB, 512 KiB).
    static const char* bn[] = {"KiB", "MiB", "GiB", "TiB"};
    for (int k = 4; k >= 1; --k) {
      double unit = std::ldexp(1.0, 10 * k);
      if (std::fabs(v) >= unit && std::fabs(v) < 10000 * unit && std::fmod(v, unit) == 0 &&
          std::fmod(v, std::pow(1000.0, k)) != 0)
        return fmt::format("{:.10g} {}", v / unit, bn[k - 1]);
    }
    static const char* n[] = {"B", "KB", "MB", "GB", "TB"};
    static const double s[] = {1, 1e3, 1e6, 1e9, 1e12};
    return scaled(v, n, s, 5);
  }
  if (dim == Dim::byte() / Dim::seconds()) {
    static const char* n[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
    static const double s[] = {1, 1e3, 1e6, 1e9, 1e12};
    return scaled(v, n, s, 5);
  }
  if (dim == Dim::flop() / Dim::seconds()) {
    static const char* n[] = {"flop/s", "Mflop/s", "Gflop/s", "Tflop/s", "Pflop/s"};
    static const double s[] = {1, 1e6, 1e9, 1e12, 1e15};
    return scaled(v, n, s, 5);
  }
  if (dim == Dim::flop()) {
    static const char* n[] = {"flop", "Mflop", "Gflop", "Tflop", "Pflop"};
    static const double s[] = {1, 1e6, 1e9, 1e12, 1e15};
    return scaled(v, n, s, 5);
  }
  if (dim.is_count()) return fmt::format("{:.10g}", v);
  return fmt::format("{:.6g} [{} in base units]", v, dim_name(dim));
}

}  // namespace gpm::support
