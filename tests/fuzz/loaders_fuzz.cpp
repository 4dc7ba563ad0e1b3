// libFuzzer target: every input loader of collsim on arbitrary bytes.
//
// The scenario/study, cluster, device, model, selector rules, selector grid,
// HCCL/NCCL env-file, measured-log (nccl-tests, hccl_test, with the NCCL
// settings it records), profile (trace JSON, op summary CSV), NPKit trace, schedule-file and study-journal
// readers each get the input. Bad input must end as an
// InputError (exit 2 on the command line); anything else that escapes (a
// yaml-cpp or std exception, a crash, a hang, unbounded memory) is a
// finding. What loads is also estimated, as the commands estimate before
// they work (sim/run/work_estimate.h): small collective scenarios (which
// builds their schedules), training studies and plans (planWork), a grid's
// rule scores (selector check), a log's comparison on a shipped cluster
// (compare, calibrate); rules also pick for a cluster (select). Seeded with
// the shipped YAML and logs (scripts/fuzz.sh); relative paths resolve
// against the source tree.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/study/execute.h"
#include "sim/study/execute_training.h"
#include "sim/study/plan_run.h"
#include "sim/study/study_estimate.h"
#include "sim/selector/check.h"
#include "sim/selector/selector.h"
#include "sim/validation/compare.h"
#include "sim/study/study_journal.h"
#include "sim/config/cluster_config.h"
#include "sim/config/config_node.h"
#include "sim/config/model_config.h"
#include "sim/config/input_file.h"
#include "sim/config/schedule_file.h"
#include "sim/scenario/scenario.h"
#include "sim/selector/grid.h"
#include "sim/hccl/hccl_env.h"
#include "sim/nccl/nccl_env.h"
#include "sim/selector/rules.h"
#include "sim/validation/measured_curve.h"
#include "sim/validation/npkit_trace.h"
#include "sim/validation/profile.h"
#include "sim/workload/model.h"

using namespace collsim;

namespace {

template <typename F>
void expectOnlyInputErrors(F load) {
  try {
    load();
  } catch (const InputError&) {
  }
}

const std::string kBase = COLLSIM_SOURCE_DIR "/scenarios";

// Estimates stop adding up past these, as a refusal does: cheap per input.
const WorkLimits kStop{1e7, double(1ULL << 30), 1};

// The shipped one-node A100 cluster: a log's comparison is estimated on it.
const ClusterSetup& a100() {
  static const ClusterSetup setup = loadClusterFile(COLLSIM_SOURCE_DIR "/configs/clusters/dgx-a100-8.yaml", {});
  return setup;
}

// Studies estimated as run and plan estimate them: a plan all at once, a
// study from a sample of its points (sim/study/study_estimate.h) and then
// point by point as its run does.
void estimateAsCommandsDo(const StudyReader& reader) {
  const std::vector<Scenario> study = reader.all();
  bool training = false, plan = false;
  for (const Scenario& s : study) {
    if (!s.loadError.empty() || s.cluster.ranks() > 64) return;
    training = training || s.training.has_value(), plan = plan || s.plan.has_value();
    if (!s.training && s.sizes.size() > 8) return;
  }
  if (plan) {
    planWork(study, &kStop);
    return;
  }
  estimateStudy(reader, &kStop);
  if (training) {
    std::vector<TrainingJob> jobs = trainingJobs(study);
    estimateTrainingJobs(jobs, &kStop);
  } else {
    for (const Scenario& s : study) estimateScenario(s, &kStop);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  expectOnlyInputErrors([&] {
    checkUtf8Text(text, "fuzz.yaml");
    estimateAsCommandsDo(StudyReader(text, kBase + "/fuzz.yaml", kBase, {}));
  });
  expectOnlyInputErrors([&] {
    auto origins = std::make_shared<ConfigOrigins>("cluster.yaml");
    loadCluster(ConfigNode(parseYamlMapping(text, "cluster.yaml", "a cluster file"), origins));
  });
  expectOnlyInputErrors([&] {
    auto origins = std::make_shared<ConfigOrigins>("device.yaml");
    loadDevice(ConfigNode(parseYamlMapping(text, "device.yaml", "a device file"), origins));
  });
  expectOnlyInputErrors([&] {
    auto origins = std::make_shared<ConfigOrigins>("model.yaml");
    loadModel(ConfigNode(parseYamlMapping(text, "model.yaml", "a model"), origins));
  });
  expectOnlyInputErrors([&] {
    SelectorRules rules = loadSelectorRulesText(text, "rules.yaml");
    choose(rules, Collective::AllReduce, Bytes(1) << 20, a100().cluster);
  });
  expectOnlyInputErrors([&] { estimateRuleScores(loadGridText(text, kBase + "/grid.yaml"), &kStop); });
  expectOnlyInputErrors([&] {
    Cluster cluster;
    cluster.rankNode.assign(16, 0);
    cluster.servers = 2;
    cluster.devicesPerServer = 8;
    interpretHcclSettings(readEnvText(text, "env.sh", 16), cluster);
  });
  // A log, and the NCCL settings it records as compare applies them.
  expectOnlyInputErrors([&] { interpretNcclSettings(parseMeasuredCurve(text, "log.txt").env, NcclTopology{2, true, false}); });
  expectOnlyInputErrors([&] {
    MeasuredCurve curve = parseMeasuredCurve(text, "log.txt");
    if (curve.points.size() <= 64) estimateComparison(curve, curve.op, a100(), CompareOptions{});
  });
  expectOnlyInputErrors([&] { interpretNcclSettings(readEnvText(text, "env.sh", 16), NcclTopology{1, true, false}); });
  expectOnlyInputErrors([&] { breakdownOf(parseProfile(text, "profile.json")); });
  expectOnlyInputErrors([&] { fitStepCost(parseNpkitTrace(text, "npkit_event_trace.json")); });
  expectOnlyInputErrors([&] { readScheduleText(text, "schedule.json"); });
  // A journal's records after its header; the header itself fuzzed too.
  expectOnlyInputErrors([&] { parseJournal("{\"collsim_journal\":2,\"study\":\"fp\",\"inputs\":[]}\n" + text, "fp", "j.partial"); });
  expectOnlyInputErrors([&] { parseJournal(text, "fp", "j.partial"); });
  return 0;
}
