// The figures of a training step that a study can set beside published
// ones (a variant's `reference:`): the rows of the seed article's tuning
// table, in its order and units.
#pragma once

#include <string>
#include <vector>

#include "sim/workload/step_simulation.h"

namespace collsim {

struct ReferenceFigure {
  const char* key;   // in YAML: reference: {step_ms: 33.8}
  const char* label; // in tables
  double (*of)(const StepResult&);
};

const std::vector<ReferenceFigure>& referenceFigures();
const ReferenceFigure* findReferenceFigure(const std::string& key);

} // namespace collsim
