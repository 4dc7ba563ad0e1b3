// libFuzzer target: every input loader of collsim on arbitrary bytes.
//
// The scenario/study, cluster, device, model, selector rules, selector grid,
// HCCL/NCCL env-file, measured-log (nccl-tests, hccl_test, with the NCCL
// settings it records), profile (trace JSON, op summary CSV), schedule-file and study-journal
// readers each get the input. Bad input must end as an
// InputError (exit 2 on the command line); anything else that escapes (a
// yaml-cpp or std exception, a crash, a hang, unbounded memory) is a
// finding. Small scenarios are also estimated (sim/run/work_estimate.h),
// which builds their schedules. Seeded with the shipped YAML
// (scripts/fuzz.sh); relative paths resolve against the source tree.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/study/execute.h"
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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  expectOnlyInputErrors([&] {
    checkUtf8Text(text, "fuzz.yaml");
    for (const Scenario& s : loadStudyText(text, kBase + "/fuzz.yaml", kBase, {}))
      if (s.loadError.empty() && !s.training && s.cluster.ranks() <= 64 && s.sizes.size() <= 8) estimateScenario(s);
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
  expectOnlyInputErrors([&] { loadSelectorRulesText(text, "rules.yaml"); });
  expectOnlyInputErrors([&] { loadGridText(text, kBase + "/grid.yaml"); });
  expectOnlyInputErrors([&] {
    Cluster cluster;
    cluster.rankNode.assign(16, 0);
    cluster.servers = 2;
    cluster.devicesPerServer = 8;
    interpretHcclSettings(readEnvText(text, "env.sh", 16), cluster);
  });
  // A log, and the NCCL settings it records as compare applies them.
  expectOnlyInputErrors([&] { interpretNcclSettings(parseMeasuredCurve(text, "log.txt").env, NcclTopology{2, true, false}); });
  expectOnlyInputErrors([&] { interpretNcclSettings(readEnvText(text, "env.sh", 16), NcclTopology{1, true, false}); });
  expectOnlyInputErrors([&] { breakdownOf(parseProfile(text, "profile.json")); });
  expectOnlyInputErrors([&] { readScheduleText(text, "schedule.json"); });
  // A journal's records after its header; the header itself fuzzed too.
  expectOnlyInputErrors([&] { parseJournal("{\"collsim_journal\":1,\"study\":\"fp\"}\n" + text, "fp", "j.partial"); });
  expectOnlyInputErrors([&] { parseJournal(text, "fp", "j.partial"); });
  return 0;
}
