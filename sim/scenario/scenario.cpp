#include "sim/scenario/scenario.h"
#include "sim/core/closest_name.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "algorithms/core/registry.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"
#include "sim/config/cluster_config.h"
#include "sim/config/config_node.h"
#include "sim/config/measurement_config.h"
#include "sim/config/plan_config.h"
#include "sim/core/input_error.h"
#include "sim/core/printable.h"
#include "sim/core/text_list.h"
#include "sim/config/training_config.h"
#include "sim/workload/gradient_buckets.h"
#include "sim/workload/parallel_step.h"
#include "sim/config/input_file.h"
#include "sim/config/key_registry.h"
#include "sim/scenario/study.h"
#include "sim/workload/reference_figures.h"
#include "sim/network/network_models.h"

namespace collsim {
namespace {

// `training.selector: FILE` (relative to the scenario's folder). A file that
// cannot be read is located at the key; an error inside it keeps its own line.
SelectorRules loadSelectorRulesAt(const ConfigNode& key, const std::string& baseDir) {
  std::filesystem::path p = key.text();
  if (p.is_relative()) p = std::filesystem::path(baseDir) / p;
  std::string text;
  try {
    text = readInputFile(p.string(), "selector rules file");
  } catch (const ConfigError& e) {
    key.fail(e.what());
  }
  return loadSelectorRulesText(text, p.string());
}

std::vector<Bytes> loadSizes(const ConfigNode& n) {
  if (n.isSequence()) {
    if (double(n.yaml().size()) > kMaxSizes)
      n.fail("the list has " + std::to_string(n.yaml().size()) + " sizes; at most " + std::to_string(int(kMaxSizes)));
    std::vector<Bytes> sizes;
    for (const ConfigNode& item : n.items()) sizes.push_back(item.bytes());
    if (sizes.empty()) n.fail("the size list is empty");
    return sizes;
  }
  if (n.isMap()) {
    n.allowDeclared(InputKind::Scenario, "sizes");
    Bytes min = n.at("min").bytes(), max = n.at("max").bytes();
    double factor = n.has("factor") ? n.at("factor").number() : 2.0;
    if (min > max) n.fail("min is larger than max");
    if (factor <= 1.0) n.at("factor").fail("factor must be greater than 1");
    if (double count = geometricCount(double(min), double(max), factor); count > kMaxSizes)
      n.fail("the range makes about " + std::to_string(static_cast<long long>(count)) + " sizes; at most " +
             std::to_string(int(kMaxSizes)) + " (a larger factor?)");
    return geometricSizes(min, max, factor);
  }
  return {n.bytes()};
}


void loadAlgorithms(const ConfigNode& algo, Scenario& s) {
  std::vector<ConfigNode> algos = algo.isSequence() ? algo.items() : std::vector<ConfigNode>{algo};
  if (algos.size() == 1 && algos[0].isScalar()) {
    if (std::vector<std::string> named = algorithmsNamedBy(s.op, algos[0].text(), s.cluster); !named.empty()) {
      s.algorithms = named;
      algos.clear();
    }
  }
  for (const ConfigNode& a : algos) {
    std::string name = a.text();
    if (name == "auto" && s.training) {
      // Under a layout (or a plan of layouts) auto is HCCL's rule per group.
      if (!s.selector && !s.plan && !s.training->parallel)
        a.fail("auto needs selector rules (training.selector: FILE), or a parallel layout");
      s.algorithms.push_back(name);
      continue;
    }
    if (ResolvedAlgorithm r = resolveAlgorithm(s.op, name, s.cluster); !r)
      a.fail(r.problem + (s.training ? "; or auto: the selector's pick per bucket"
                          : name == "auto" ? " ('auto' is for training studies)" : ""));
    s.algorithms.push_back(name);
  }
  for (const auto& name : s.algorithms) // `all` may hold some that cannot run here
    if (ResolvedAlgorithm r = resolveAlgorithm(s.op, name, s.cluster); name != "auto" && !r) algo.fail(r.problem);
  if (s.algorithms.empty()) algo.fail("no algorithm given");
}

void loadReference(const ConfigNode& root, const StudyPoint& point, Scenario& s) {
  if (auto info = root.find("reference")) {
    info->allowDeclared(InputKind::Scenario, "reference");
    if (auto v = info->find("source")) s.referenceInfo.source = v->text();
    if (auto v = info->find("tolerance")) {
      s.referenceInfo.tolerance = v->number();
      if (s.referenceInfo.tolerance <= 0) v->fail("the tolerance is a positive fraction, e.g. 0.2");
    }
    if (auto notes = info->find("notes"))
      for (const auto& [key, note] : notes->entries()) {
        if (!findReferenceFigure(key)) note.fail("no figure '" + key + "' to compare");
        s.referenceInfo.notes[key] = note.text();
      }
  }
  if (!point.reference) return;
  const ConfigNode& values = *point.reference;
  if (!values.isMap()) values.fail("expected figures mapped to published values");
  for (const auto& [key, value] : values.entries()) {
    std::vector<std::string> keys;
    for (const auto& f : referenceFigures()) keys.push_back(f.key);
    if (!findReferenceFigure(key))
      value.fail("no figure '" + key + "' to compare (figures: " + joinNames(keys) + ")");
    s.reference[key] = value.number();
  }
}

Scenario interpret(const ConfigNode& root, const StudyPoint& point, const std::string& baseDir) {
  root.allowDeclared(InputKind::Scenario, "");
  Scenario s;
  s.name = root.has("name") ? root.at("name").text() : "scenario";
  if (auto d = root.find("description")) s.description = d->text();
  s.variant = point.variant;
  s.sweepValues = point.sweepValues;

  ConfigNode cluster = root.at("cluster");
  if (!cluster.isMap()) cluster.fail("expected a cluster mapping or a path to a cluster file");
  ClusterSetup setup = loadCluster(cluster);
  s.cluster = std::move(setup.cluster);
  s.roce = std::move(setup.roce);
  s.library = std::move(setup.library);
  if (auto t = root.find("training")) {
    s.training = loadTraining(*t);
    if (auto p = t->find("parallel")) {
      try {
        checkParallelLayout(s.cluster, *s.training);
      } catch (const InputError& e) {
        p->fail(e.what());
      }
    }
    if (auto v = t->find("selector")) s.selector = loadSelectorRulesAt(*v, baseDir);
  }

  if (auto p = root.find("plan")) {
    if (!s.training) p->fail("a plan searches layouts for a training: block (model, bucket)");
    s.plan = loadPlanSpace(*p);
  }
  // Plain data parallelism's step check, here where the bucket was set (a
  // plan prunes its layouts by their own).
  if (s.training && !s.plan && !s.training->parallel) {
    if (auto b = root.at("training").find("bucket")) {
      try {
        checkBucketCount(s.training->model, s.training->bucket);
      } catch (const InputError& e) {
        b->fail(e.what());
      }
    }
  }
  if (s.training) {
    if (auto op = root.find("op"); op && op->text() != "allreduce")
      op->fail("a training step synchronizes gradients with allreduce");
    if (auto sizes = root.find("sizes")) sizes->fail("a training study takes its sizes from the gradient buckets");
    if (root.has("algo")) loadAlgorithms(root.at("algo"), s);
    else s.algorithms = {"ring"};
  } else {
    ConfigNode op = root.at("op");
    if (!parseCollective(op.text(), s.op))
      op.fail(unknownName("collective", op.text(), collectiveNames()));
    loadAlgorithms(root.at("algo"), s);
    s.sizes = loadSizes(root.at("sizes"));
  }
  if (auto d = root.find("dtype"); d && !parseDataType(d->text(), s.dtype))
    d->fail(unknownName("dtype", d->text(), dataTypeNames()));
  if (auto r = root.find("root")) s.root = int(r->integer(0, s.cluster.ranks() - 1));
  if (auto sim = root.find("simulation")) {
    sim->allowDeclared(InputKind::Scenario, "simulation");
    if (auto v = sim->find("channels")) s.simulation.channels = int(v->integer(1, 64));
    if (auto v = sim->find("seed")) s.simulation.seed = std::uint64_t(v->integer(0, std::numeric_limits<long long>::max()));
    if (auto f = sim->find("fidelity"); f && !parseFidelity(f->choice({"fast", "packet"}), s.simulation.fidelity))
      f->fail("unknown fidelity");
    if (auto seg = sim->find("segment")) {
      s.simulation.segment = seg->bytes();
      if (s.simulation.segment == 0) seg->fail("segment size must be positive");
    }
    if (auto v = sim->find("verify")) s.simulation.verify = v->boolean();
    if (auto v = sim->find("symmetry")) s.simulation.symmetry = v->choice({"on", "off"}) == "on";
  }
  if (auto h = root.find("hccl")) {
    // HCCL_BUFFSIZE as a key: data larger than the buffer runs in loops of it.
    h->allowDeclared(InputKind::Scenario, "hccl");
    if (auto v = h->find("buffer_size")) {
      s.simulation.loopBytes = v->bytes();
      if (s.simulation.loopBytes == 0) v->fail("the HCCL buffer holds at least one byte (HCCL_BUFFSIZE is in MB)");
    }
  }
  loadReference(root, point, s);
  if (auto m = point.measured ? point.measured : root.find("measured")) {
    if (!s.training) m->fail("a measured figure is a training run's (a training: block)");
    s.measured = loadMeasurement(*m, *s.training, s.cluster.device, baseDir);
  }
  return s;
}

} // namespace

double geometricCount(double min, double max, double factor) {
  if (min <= 0) return max >= 0 ? 1 : 0;
  return std::floor(std::log(max / min) / std::log(factor) + 1e-9) + 1;
}

std::vector<Bytes> geometricSizes(Bytes min, Bytes max, double factor) {
  std::vector<Bytes> sizes;
  for (double v = double(min); v <= double(max) * (1 + 1e-12); v *= factor) {
    sizes.push_back(Bytes(v + 0.5));
    if (v == 0) break; // 0 * factor stays 0
  }
  return sizes;
}

// --set of the study's own keys changes its expansion; other keys are set
// on every point afterwards, so they win over the study's assignments.
static bool isStudyKey(const std::string& o) {
  return o.rfind("sweep", 0) == 0 || o.rfind("variants", 0) == 0 || o.rfind("reference", 0) == 0;
}

static bool isFileKey(const std::string& o, const std::string& key) { return o.rfind(key + "=", 0) == 0; }

// A key of the scenario's, its cluster section under the name the inline
// cluster gives it (cluster.hccs... reaches a cluster that says scale_up:).
static std::string asWrittenHere(const YAML::Node& root, const std::string& key) {
  return asWrittenInCluster(root["cluster"], key, "cluster.");
}

// The --set assignments on a point's own keys: not the files it names, not
// the study's expansion.
static void applyPointOverrides(YAML::Node& root, const std::vector<std::string>& overrides, ConfigOrigins& origins) {
  for (const auto& o : overrides)
    if (!isFileKey(o, "cluster") && !isFileKey(o, "training.model") && !isFileKey(o, "cluster.device") && !isStudyKey(o))
      applyOverride(root, asWrittenHere(root, o), origins, o);
}

// The scenario's cluster from its file (relative to `base`), and the
// cluster's device from its own file: relative to the cluster file, or to
// `base` when the cluster is written in the scenario.
static void inlineCluster(YAML::Node& root, const std::filesystem::path& base, ConfigOrigins& origins,
                          const std::shared_ptr<ConfigOrigins>& shared) {
  std::string file = inlineYamlFile(root, "cluster", "cluster", base, origins, shared);
  if (root["cluster"] && root["cluster"].IsMap()) {
    YAML::Node cluster = root["cluster"];
    inlineDevice(cluster, "cluster.device", file.empty() ? base : std::filesystem::path(file).parent_path(), origins,
                 shared);
  }
}

// The study's YAML with its files inlined and the study-key overrides
// applied.
static YAML::Node readStudyRoot(const std::string& yaml, const std::string& label, const std::string& baseDir,
                                const std::vector<std::string>& overrides,
                                const std::shared_ptr<ConfigOrigins>& origins) {
  YAML::Node root = parseYamlMapping(yaml, label, "a scenario");
  // Keys that name files (a cluster, a model) are inlined. A --set KEY=FILE
  // comes first and is relative to the current folder; a path in the file
  // is relative to the file.
  std::filesystem::path clusterBase = baseDir, modelBase = baseDir;
  for (const auto& o : overrides) {
    if (isFileKey(o, "cluster")) applyOverride(root, o, *origins), clusterBase = std::filesystem::current_path();
    if (isFileKey(o, "training.model")) applyOverride(root, o, *origins), modelBase = std::filesystem::current_path();
  }
  inlineCluster(root, clusterBase, *origins, origins);
  for (const auto& o : overrides)
    if (isFileKey(o, "cluster.device") && root["cluster"].IsMap()) {
      applyOverride(root, o, *origins);
      YAML::Node cluster = root["cluster"];
      inlineDevice(cluster, "cluster.device", std::filesystem::current_path(), *origins, origins);
    }
  if (root["training"] && root["training"].IsMap()) {
    YAML::Node training = root["training"];
    inlineYamlFile(training, "model", "training.model", modelBase, *origins, origins);
  }
  for (const auto& o : overrides)
    if (isStudyKey(o)) applyOverride(root, o, *origins);
  return root;
}

// A key as one path, whatever its spelling: `cluster.hccs` as the cluster
// writes it, list items as `.N` (`tiers[2]` and `tiers.2` are one key).
static std::string canonicalKey(const YAML::Node& root, const std::string& key) {
  std::string written = asWrittenHere(root, key + "=");
  written.pop_back();
  std::string out;
  for (char c : written) {
    if (c == '[') out += '.';
    else if (c != ']') out += c;
  }
  return out;
}

static bool isUnder(const std::string& key, const std::string& ancestor) {
  return key.size() > ancestor.size() && key.rfind(ancestor, 0) == 0 && key[ancestor.size()] == '.';
}

// A --set on a key the sweep or a variant sets would either replace every
// point's value (the rows would name values they did not run) or be
// replaced by it (the --set silently ignored): both are refused, and so is
// a --set above such a key (it replaces what the points set), or below a
// swept value (the row names the value, the run ran another). What is
// refused is not ambiguous: a file --set (cluster=other.yaml) above a swept
// key (cluster.servers) is what it says, the sweep reaching into the new
// file; a --set below a variant's key or a swept file (cluster.servers under
// a variant's cluster: b.yaml) is applied on top of each, as --set is, and
// the rows name the variant or the file.
static void refuseSetsOnVariedKeys(const YAML::Node& root, const StudyPoints& points,
                                   const std::vector<std::string>& overrides) {
  const auto varied = points.variedKeys();
  if (varied.empty()) return;
  for (const auto& o : overrides) {
    if (isStudyKey(o) || o.find('=') == std::string::npos) continue;
    const std::string typed = o.substr(0, o.find('='));
    const std::string key = canonicalKey(root, typed);
    const bool namesFile = isFileKey(o, "cluster") || isFileKey(o, "training.model") || isFileKey(o, "cluster.device");
    for (const auto& v : varied) {
      const std::string vkey = canonicalKey(root, v.key);
      const bool belowSweptValue = v.by == "sweep" && v.key != "cluster" && v.key != "training.model" &&
                                   v.key != "cluster.device" && isUnder(key, vkey);
      if (!(key == vkey || belowSweptValue || (isUnder(vkey, key) && !namesFile))) continue;
      std::string fix = v.by == "sweep" ? "change the sweep instead: --set 'sweep[" + v.key + "]=[" +
                                              o.substr(o.find('=') + 1) + "]'"
                                        : "change the variant's set: block, or drop the --set";
      throw UsageError("--set " + printable(o) + ": the study's " + v.by + " sets " + v.key + " (" + v.where +
                       "), so its points would be labelled with values they did not run; " + fix);
    }
  }
}

// A --set as a cluster file spells it (`perf`'s form: scale_up.bandwidth=...)
// where a scenario's key is meant: named with the scenario's spelling, not
// matched to the nearest scenario key (hccs -> hccl).
static void refuseClusterFileSpelling(const std::vector<std::string>& overrides) {
  static const std::vector<std::string> scenarioKeys = declaredKeysOf(InputKind::Scenario, "");
  static const std::vector<std::string> clusterKeys = declaredKeysOf(InputKind::Scenario, "cluster");
  auto names = [](const std::vector<std::string>& keys, const std::string& head) {
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return segmentNames(head, k); });
  };
  for (const auto& o : overrides) {
    const std::string key = o.substr(0, o.find('='));
    const std::string head = key.substr(0, key.find_first_of(".["));
    if (o.find('=') == std::string::npos || names(scenarioKeys, head) || !names(clusterKeys, head)) continue;
    throw UsageError("--set " + printable(o) + ": '" + printable(head) + "' is a key of the cluster, not of the "
                     "scenario: --set cluster." + printable(o));
  }
}

// What every point of a study starts from, and how it differs.
struct StudyReader::State {
  std::string baseDir;
  std::vector<std::string> overrides;
  std::shared_ptr<ConfigOrigins> studyOrigins;
  // The study as read, without its variants and sweep (expanded already):
  // reading the files again for each of 100,000 points took 25 s, copying a
  // 316-value sweep with each most of the rest. A copy loses its nodes'
  // lines and columns; the origins keep them by path.
  YAML::Node pointBase;
  StudyPoints points;
  std::shared_ptr<const std::string> resolved;
  std::function<void(Scenario&)> loaded;
};

StudyReader::StudyReader(const std::string& yaml, const std::string& label, const std::string& baseDir,
                         const std::vector<std::string>& overrides)
    : state_(std::make_shared<State>()) {
  State& st = *state_;
  refuseClusterFileSpelling(overrides);
  st.baseDir = baseDir;
  st.overrides = overrides;
  st.studyOrigins = std::make_shared<ConfigOrigins>(label);
  YAML::Node study = readStudyRoot(yaml, label, baseDir, overrides, st.studyOrigins);
  st.points = expandStudy(ConfigNode(study, st.studyOrigins));
  refuseSetsOnVariedKeys(study, st.points, overrides);
  st.studyOrigins->setMarks(std::make_shared<const YamlMarks>(recordMarks(study)));
  st.pointBase = YAML::Clone(study);
  st.pointBase.remove("variants");
  st.pointBase.remove("sweep");
  { // The study with every --set applied, for its results' provenance.
    auto origins = std::make_shared<ConfigOrigins>(*st.studyOrigins);
    YAML::Node root = YAML::Clone(study);
    applyPointOverrides(root, overrides, *origins);
    YAML::Emitter emitter;
    emitter << root;
    st.resolved = std::make_shared<const std::string>(std::string(emitter.c_str()) + "\n");
  }
}

std::size_t StudyReader::size() const { return state_->points.size(); }

const std::string& StudyReader::resolvedYaml() const { return *state_->resolved; }

void StudyReader::onEachPoint(std::function<void(Scenario&)> loaded) { state_->loaded = std::move(loaded); }

Scenario StudyReader::point(std::size_t i) const {
  const State& st = *state_;
  if (i >= st.points.size()) throw std::out_of_range("no study point " + std::to_string(i));
  const StudyPoint point = st.points[i];
  auto origins = std::make_shared<ConfigOrigins>(*st.studyOrigins);
  YAML::Node root = YAML::Clone(st.pointBase);
  const std::string where = point.variant.empty() ? "sweep " : "variant " + point.variant + ": ";
  // A point that names another file (variant set: {cluster: other.yaml})
  // has it inlined first, relative to the study, so that its other keys
  // (cluster.servers) reach into that file.
  auto namesFile = [](const std::string& key, const YAML::Node& value) {
    return (key == "cluster" || key == "training.model" || key == "cluster.device") && value.IsScalar();
  };
  // An assignment is named where the study makes it: "study.yaml:6:3: sweep cluster.servers=8".
  auto assignedAt = [&](const Assignment& a) { return a.where + ": " + where + a.key + "=" + YAML::Dump(a.value); };
  for (const Assignment& a : point.assignments) {
    const std::string& key = a.key;
    const YAML::Node& value = a.value;
    if (!namesFile(key, value)) continue;
    setPath(root, key, YAML::Clone(value), *origins, assignedAt(a));
    if (key == "cluster") {
      inlineCluster(root, st.baseDir, *origins, origins);
    } else if (key == "cluster.device") {
      YAML::Node cluster = root["cluster"];
      inlineDevice(cluster, key, st.baseDir, *origins, origins);
    } else {
      YAML::Node training = root["training"];
      inlineYamlFile(training, "model", key, st.baseDir, *origins, origins);
    }
  }
  for (const Assignment& a : point.assignments) {
    if (namesFile(a.key, a.value)) continue;
    setPath(root, asWrittenHere(root, a.key), YAML::Clone(a.value), *origins, assignedAt(a));
  }
  applyPointOverrides(root, st.overrides, *origins);
  Scenario s;
  try {
    s = interpret(ConfigNode(root, origins), point, st.baseDir);
  } catch (const ConfigError& e) {
    if (st.points.size() == 1) throw;
    s = Scenario{};
    s.name = root["name"] && root["name"].IsScalar() ? root["name"].Scalar() : "scenario";
    s.variant = point.variant;
    s.sweepValues = point.sweepValues;
    s.loadError = e.what();
  }
  s.resolvedYaml = st.resolved;
  if (s.loadError.empty() && st.loaded) st.loaded(s);
  return s;
}

std::vector<Scenario> StudyReader::all() const {
  std::vector<Scenario> scenarios;
  scenarios.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) scenarios.push_back(point(i));
  // Every point failing is an error of the study itself.
  if (std::all_of(scenarios.begin(), scenarios.end(), [](const Scenario& s) { return !s.loadError.empty(); }))
    throw ConfigError(scenarios.front().loadError);
  return scenarios;
}

StudyReader openStudyFile(const std::string& file, const std::vector<std::string>& overrides) {
  std::string text = readInputFile(file, "scenario file");
  return StudyReader(text, file, std::filesystem::path(file).parent_path().string(), overrides);
}

std::vector<Scenario> loadStudyText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                                    const std::vector<std::string>& overrides) {
  return StudyReader(yaml, label, baseDir, overrides).all();
}

std::vector<Scenario> loadStudyFile(const std::string& file, const std::vector<std::string>& overrides) {
  return openStudyFile(file, overrides).all();
}

static Scenario single(std::vector<Scenario> study, const std::string& label) {
  if (study.size() != 1)
    throw ConfigError(label + ": this command runs one scenario, but the file's variants and sweep make " +
                      std::to_string(study.size()));
  return std::move(study.front());
}

Scenario loadScenarioText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                          const std::vector<std::string>& overrides) {
  return single(loadStudyText(yaml, label, baseDir, overrides), label);
}

Scenario loadScenarioFile(const std::string& file, const std::vector<std::string>& overrides) {
  return single(loadStudyFile(file, overrides), file);
}

} // namespace collsim
