// units.h: physical dimensions (time, bytes, flops and their products) and the unit table.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpm::support {

// Exponents of the base dimensions; all zero is a plain count.
struct Dim {
  int8_t time = 0;
  int8_t bytes = 0;
  int8_t flops = 0;

  static Dim count() { return {}; }
  static Dim seconds() { return {1, 0, 0}; }
  static Dim byte() { return {0, 1, 0}; }
  static Dim flop() { return {0, 0, 1}; }
  bool operator==(const Dim&) const = default;
  bool is_count() const { return time == 0 && bytes == 0 && flops == 0; }
  Dim operator*(const Dim& o) const {
    return {int8_t(time + o.time), int8_t(bytes + o.bytes), int8_t(flops + o.flops)};
  }
  Dim operator/(const Dim& o) const {
    return {int8_t(time - o.time), int8_t(bytes - o.bytes), int8_t(flops - o.flops)};
  }
  Dim pow(int k) const { return {int8_t(time * k), int8_t(bytes * k), int8_t(flops * k)}; }
  // Exponents are kept within +-kMaxExponent; these say whether an operation stays inside.
  static constexpr int kMaxExponent = 16;
  static bool fits(int t, int b, int f) {
    auto ok = [](int e) { return e >= -kMaxExponent && e <= kMaxExponent; };
    return ok(t) && ok(b) && ok(f);
  }
  bool can_pow(int k) const { return fits(time * k, bytes * k, flops * k); }
  bool can_mul(const Dim& o) const { return fits(time + o.time, bytes + o.bytes, flops + o.flops); }
  bool can_div(const Dim& o) const { return fits(time - o.time, bytes - o.bytes, flops - o.flops); }
  bool all_even() const { return time % 2 == 0 && bytes % 2 == 0 && flops % 2 == 0; }
  Dim half() const { return {int8_t(time / 2), int8_t(bytes / 2), int8_t(flops / 2)}; }
};

// A readable name for a dimension: `time`, `bytes/time`, `count`, `flops/time`, `time/bytes`.
std::string dim_name(Dim dim);

// A unit: the factor that converts a value in this unit to base units (s, B, flop) and its dimension.
struct Unit {
  double scale = 1.0;  // num / den
  Dim dim;
  double num = 1, den = 1;
  // Converts a value in this unit to base units, rounding once where the unit is a fraction.
  double to_base(double value) const { return den == 1 ? value * num : value * num / den; }
};

// Parses a unit as the lexer accepts it: words separated by `/` (`GB/s`, `ns/B`, `GT/s`).
std::optional<Unit> parse_unit(std::string_view text);
// Whether a single word (no `/`) is a unit.
bool is_unit_word(std::string_view word);
// Every unit word, for tests and documentation.
const char* const* unit_words(size_t* count);

// Dimension names usable in types (`fn f(t: time, bw: bytes/time) -> time`).
std::optional<Dim> dimension_named(std::string_view name);

// Formats a value given in base units with a readable unit for its dimension (`12.5 GB/s`).
std::string format_quantity(double base_value, Dim dim);

}  // namespace gpm::support
