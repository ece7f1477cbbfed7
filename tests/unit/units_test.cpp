// units_test.cpp: unit tests of the unit table and dimension arithmetic.
#include <doctest/doctest.h>

#include "support/units.h"

using namespace gpm::support;

TEST_CASE("decimal and binary prefixes mean what they say") {
  CHECK(parse_unit("KB")->scale == 1000.0);
  CHECK(parse_unit("KiB")->scale == 1024.0);
  CHECK(parse_unit("GiB")->scale == 1073741824.0);
  CHECK(parse_unit("GB")->scale == 1e9);
  CHECK(parse_unit("us")->scale == 1e-6);
  CHECK(parse_unit("b")->scale == 0.125);
}

TEST_CASE("compound units divide their words") {
  auto rate = parse_unit("GB/s");
  REQUIRE(rate);
  CHECK(rate->scale == 1e9);
  CHECK(rate->dim == Dim::byte() / Dim::seconds());
  auto per_byte = parse_unit("ns/B");
  REQUIRE(per_byte);
  CHECK(per_byte->dim == Dim::seconds() / Dim::byte());
  auto transfers = parse_unit("GT/s");
  REQUIRE(transfers);
  CHECK(transfers->dim == Dim::count() / Dim::seconds());
  CHECK(parse_unit("Tflop/s")->dim == Dim::flop() / Dim::seconds());
  CHECK_FALSE(parse_unit("GB/x"));
  CHECK_FALSE(parse_unit("Gbps"));
}

TEST_CASE("dimension names are readable") {
  CHECK(dim_name(Dim::count()) == "count");
  CHECK(dim_name(Dim::byte() / Dim::seconds()) == "bytes/time");
  CHECK(dim_name(Dim::seconds() / Dim::byte()) == "time/bytes");
  CHECK(dim_name(Dim::count() / Dim::seconds()) == "1/time");
  CHECK(dim_name(Dim::flop() / (Dim::seconds() * Dim::byte())) == "flops/(bytes*time)");
}

TEST_CASE("quantities format with a readable unit") {
  CHECK(format_quantity(8e9, Dim::byte() / Dim::seconds()) == "8 GB/s");
  CHECK(format_quantity(9.42e-6, Dim::seconds()) == "9.42 us");
  CHECK(format_quantity(1024, Dim::byte()) == "1 KiB");
  CHECK(format_quantity(1073741824, Dim::byte()) == "1 GiB");
  CHECK(format_quantity(1e9, Dim::byte()) == "1 GB");
  CHECK(format_quantity(1500, Dim::byte()) == "1.5 KB");
}
