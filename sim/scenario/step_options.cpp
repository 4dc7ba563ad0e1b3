#include "sim/scenario/step_options.h"

#include "sim/selector/selector.h"

namespace collsim {

StepOptions stepOptionsOf(const Scenario& s, const std::string& algorithm, std::uint64_t seed, TraceRecorder* trace) {
  StepOptions o;
  o.algorithm = algorithm;
  o.segment = s.simulation.segment;
  o.fidelity = s.simulation.fidelity;
  o.seed = seed;
  o.roce = s.roce;
  if (s.simulation.loopBytes > 0) o.hcclBufferSize = s.simulation.loopBytes;
  o.bufferLoops = s.library.kind != LibraryKind::Nccl;
  o.communicatorBuffer = communicatorBufferBytes(s.library, o.hcclBufferSize);
  o.verify = s.simulation.verify;
  o.symmetry = s.simulation.symmetry;
  o.trace = trace;
  o.collectiveComputeShare = collectiveComputeShare(s.library, s.cluster.device.computeUnits);
  if (s.selector) {
    // `auto`: the rules' pick for each bucket's size on this cluster.
    o.pickAlgorithm = [rules = *s.selector, cluster = s.cluster](Bytes bytes) {
      return choose(rules, Collective::AllReduce, bytes, cluster).algorithm;
    };
  }
  return o;
}

} // namespace collsim
