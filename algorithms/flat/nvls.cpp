#include "algorithms/flat/nvls.h"

#include <map>
#include <utility>

#include "algorithms/core/chunk_loops.h"
#include "algorithms/core/compose.h"
#include "algorithms/core/pipeline.h"
#include "algorithms/flat/mesh.h"

namespace collsim {
namespace {

// `inner` with its sends marked for the switch.
class InNetworkSchedule final : public Schedule {
public:
  InNetworkSchedule(SchedulePtr inner, InNetwork mode, int groupSize)
      : inner_(std::move(inner)), mode_(mode), groupSize_(groupSize) {}
  int ranks() const override { return inner_->ranks(); }
  int stepCount(int rank) const override { return inner_->stepCount(rank); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    std::size_t first = out.size();
    inner_->appendOps(rank, step, out);
    for (std::size_t i = first; i < out.size(); ++i) {
      if (out[i].kind != OpKind::Send) continue;
      out[i].net = mode_;
      out[i].group = std::uint16_t(groupSize_);
    }
  }

private:
  SchedulePtr inner_;
  InNetwork mode_;
  int groupSize_;
};

SchedulePtr nvlsReduceScatter(const GroupView& g) {
  return std::make_unique<InNetworkSchedule>(meshReduceScatter(g), InNetwork::Reduce, g.size() - 1);
}
SchedulePtr nvlsAllGather(const GroupView& g) {
  return std::make_unique<InNetworkSchedule>(meshAllGather(g), InNetwork::Multicast, g.size() - 1);
}

// Through the switch: ReduceScatter uploads (p-1)/p n, then the sum of n/p
// comes down; AllGather uploads n/p once, then (p-1)/p n of copies come
// down. One after the other on a device's two link directions: a + n b.
double oneWay(int p, double n, const CostModel& m) { return p > 1 ? m.alpha + n * m.beta : 0; }

constexpr int kSlices = 4;
constexpr const char* kNeedsSwitch = " (needs a switch that reduces: hccs {shape: switch, reduce: true})";

} // namespace

AlgorithmEntry nvlsReduceScatterEntry() {
  AlgorithmEntry e{Collective::ReduceScatter, "nvls",
          std::string("mesh reduce-scatter whose sends the switch adds up in the network") + kNeedsSwitch,
          "a + n b + (p-1)/p n g: (p-1)/p n up to the switch, then the sum of n/p down",
          [](const GroupView& g, const CollectiveSpec&) { return nvlsReduceScatter(g); },
          [](int p, double n, const CostModel& m) { return oneWay(p, n, m) + (p - 1.0) / p * n * m.gamma; },
          anyRankCount};
  e.needsReducingSwitch = true;
  return e;
}

AlgorithmEntry nvlsAllGatherEntry() {
  AlgorithmEntry e{Collective::AllGather, "nvls",
          std::string("mesh all-gather whose sends the switch multicasts from one upload") + kNeedsSwitch,
          "a + n b: n/p up once, then (p-1)/p n of copies down",
          [](const GroupView& g, const CollectiveSpec&) { return nvlsAllGather(g); }, oneWay, anyRankCount};
  e.needsReducingSwitch = true;
  return e;
}

AlgorithmEntry nvlsAllReduceEntry() {
  AlgorithmEntry e{Collective::AllReduce, "nvls",
          std::string("in-network reduce-scatter then multicast all-gather") + kNeedsSwitch,
          "about 2 a + n b + (p-1)/p n g: n each way per device, slices overlapping",
          [](const GroupView& g, const CollectiveSpec& spec) {
            // In slices (kSlices, or one per library chunk loop), pipelined:
            // slice k's reduce-scatter (mostly uploads) overlaps slice k-1's
            // all-gather (mostly downloads).
            int slices = pipelinePieces(g, spec, kSlices);
            std::vector<std::vector<SchedulePtr>> stages;
            for (int k = 0; k < slices; ++k) {
              GroupView slice = g.sub(blockOf(g.count(), slices, k));
              stages.emplace_back();
              stages.back().push_back(nvlsReduceScatter(slice));
              stages.back().push_back(nvlsAllGather(slice));
            }
            return pipeline(std::move(stages));
          },
          [](int p, double n, const CostModel& m) {
            return p > 1 ? 2 * m.alpha + n * m.beta + (p - 1.0) / p * n * m.gamma : 0;
          },
          anyRankCount};
  e.pipelinesChunks = true;
  e.needsReducingSwitch = true;
  return e;
}

AlgorithmEntry sharpEntry(const AlgorithmEntry& nvls) {
  AlgorithmEntry e = nvls;
  e.name = "sharp";
  std::string summary = nvls.summary.substr(0, nvls.summary.find(kNeedsSwitch));
  e.summary = summary + " (SHARP: in the fabric's switch, which must reduce: fabric {type: switch, reduce: true})";
  e.needsReducingSwitch = false;
  e.needsReducingFabric = true;
  if (e.op == Collective::AllReduce) {
    // The level between servers of hierpipe:nvls+sharp, which slices the
    // buffer itself: reduce-scatter then all-gather on one stream, so that
    // it composes as a phase.
    e.formula = "2 a + n b + (p-1)/p n g: the reduce-scatter, then the all-gather";
    e.build = [](const GroupView& g, const CollectiveSpec&) -> SchedulePtr {
      std::vector<SchedulePtr> phases;
      phases.push_back(nvlsReduceScatter(g));
      phases.push_back(nvlsAllGather(g));
      return std::make_unique<SequenceSchedule>(std::move(phases));
    };
    e.cost = [](int p, double n, const CostModel& m) {
      return p > 1 ? 2 * m.alpha + n * m.beta + (p - 1.0) / p * n * m.gamma : 0;
    };
    e.pipelinesChunks = false;
  }
  return e;
}

} // namespace collsim
