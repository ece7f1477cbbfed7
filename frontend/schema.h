// schema.h: the attributes each component kind, link, kernel and machine accepts, with their dimensions.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "support/units.h"

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

struct AttrSpec {
  const char* name;
  Dim dim;
  const char* meaning;
};

// Schemas by owner: "cpu", "gpu", "memory", "switch", "root", "nic", "link", "kernel", "machine".
const std::vector<AttrSpec>* attribute_schema(std::string_view owner);
const AttrSpec* find_attribute(std::string_view owner, std::string_view name);
// Every owner the tables describe ("cpu", "gpu", ..., "machine"), in name order.
std::vector<std::string> attribute_owners();
// The component kinds a node may contain.
bool is_component_kind(std::string_view kind);
// Comma-separated attribute names of an owner, for "did you mean" style messages.
std::string attribute_names(std::string_view owner);

}  // namespace gpm::frontend
