// What several affinity test files build their cases from: a synthetic
// topology or machine from an hwloc description, and a plan's notes.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "affinity/plan.hpp"
#include "affinity/planner.hpp"
#include "affinity/topology.hpp"

namespace mptrain::affinity::testing {

// The topology hwloc builds from `description` ("package:2 core:4 pu:2").
inline Topology topology_of(const std::string& description) {
  auto topology = load_synthetic_topology(description);
  REQUIRE(topology.ok());
  return std::move(topology).value();
}

// The machine of `description`, every PU usable.
inline Machine machine_of(const std::string& description) {
  auto machine = synthetic_machine(description);
  REQUIRE(machine.ok());
  return std::move(machine).value();
}

// Whether one of `plan`'s notes or choices contains `text`.
inline bool has_note(const Plan& plan, const std::string& text) {
  for (const auto& note : notes_and_choices(plan)) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace mptrain::affinity::testing
