// Models by shape (sim/workload/transformer_shape.h): the parameter counts
// their papers publish, and the hand-counted 7 B decoder's figures, follow
// from the shapes alone.
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/config/config_node.h"
#include "sim/config/model_config.h"

using namespace collsim;
using collsim::testing::source;

namespace {

ModelSpec model(const std::string& file) {
  YAML::Node yaml = loadYamlFile(source("configs/models/" + file), "a model");
  return loadModel(ConfigNode(yaml, std::make_shared<ConfigOrigins>(file)));
}

ModelSpec fromText(const std::string& text) {
  return loadModel(ConfigNode(parseYamlMapping(text, "m.yaml", "a model"), std::make_shared<ConfigOrigins>("m.yaml")));
}

} // namespace

TEST_CASE("shapes give the parameter counts their papers publish") {
  struct Published {
    const char* file;
    double parameters, activeParameters, tolerance;
  };
  // Llama 3 8B / 70B / 405B (Meta, 2024); GPT-3 (Brown et al., 2020; biases
  // left out, 175 B rounds 174.6 B); Mixtral 8x7B (Jiang et al., 2024).
  // (deepseek-v3-like.yaml is "like": its file says how far and why.)
  for (const Published& p : {Published{"llama3-8b.yaml", 8.03e9, 8.03e9, 0.001},
                             Published{"llama3-70b.yaml", 70.6e9, 70.6e9, 0.001},
                             Published{"llama3-405b.yaml", 405e9, 405e9, 0.003},
                             Published{"gpt3-175b.yaml", 175e9, 175e9, 0.005},
                             Published{"mixtral-8x7b.yaml", 46.7e9, 12.9e9, 0.002}}) {
    CAPTURE(p.file);
    ModelSpec m = model(p.file);
    REQUIRE(m.transformer);
    CHECK(double(m.parameters()) == doctest::Approx(p.parameters).epsilon(p.tolerance));
    CHECK(double(m.transformer->activeParameters()) == doctest::Approx(p.activeParameters).epsilon(p.tolerance));
    CHECK(m.layers.size() == std::size_t(m.transformer->layers) + 2); // embedding, blocks, head
  }
  // MosaicML's MPTs: llm-foundry's benchmark table counts them at 2,048
  // tokens with their learned position embeddings (2048 x d_model), which
  // the model files leave out; the rest agrees within 0.1 %.
  for (const Published& p : {Published{"mpt-125m.yaml", 125'311'488 - 2048 * 768, 0, 0.001},
                             Published{"mpt-350m.yaml", 355'985'408 - 2048 * 1024, 0, 0.001},
                             Published{"mpt-760m.yaml", 760'470'528 - 2048 * 1536, 0, 0.001},
                             Published{"mpt-1b.yaml", 1'315'950'592 - 2048 * 2048, 0, 0.001},
                             Published{"mpt-3b.yaml", 2'651'837'440 - 2048 * 2560, 0, 0.001},
                             Published{"mpt-7b.yaml", 6'658'859'008 - 2048 * 4096, 0, 0.001},
                             Published{"mpt-13b.yaml", 12'853'954'560 - 2048 * 5120, 0, 0.001},
                             Published{"mpt-30b.yaml", 29'975'214'080 - 2048 * 7168, 0, 0.001}}) {
    CAPTURE(p.file);
    CHECK(double(model(p.file).parameters()) == doctest::Approx(p.parameters).epsilon(p.tolerance));
  }
  // Llama 3 8B to the parameter: embedding 128256 x 4096 = 525,336,576;
  // a block 2 x 4096^2 + 2 x 4096 x 1024 (Q, O; K, V) + 3 x 4096 x 14336
  // + 2 x 4096 = 218,112,000, 32 of them; the head 525,336,576 + 4096.
  CHECK(model("llama3-8b.yaml").parameters() == 525'336'576ULL + 32 * 218'112'000ULL + 525'336'576ULL + 4096);
}

// decoder-7b.yaml counts the LLaMA-7B shape by hand: 6.74 G parameters,
// 29.2 TFLOP a sample's forward pass, 1.6 GB of activations (rounded up
// from 1.49 GiB). The same shape given as `transformer:` agrees.
TEST_CASE("the LLaMA-7B shape reproduces the hand-counted 7 B decoder") {
  ModelSpec byShape = fromText("name: shape-7b\n"
                               "transformer: {layers: 32, hidden: 4096, heads: 32, ffn: 11008, vocabulary: 32000, sequence: 2048,\n"
                               "              attention: standard}\n"
                               "compute: {utilization: 0.45, backward_factor: 3}\n");
  ModelSpec byHand = model("decoder-7b.yaml");
  CHECK(byShape.parameters() == 6'738'415'616ULL);
  CHECK(double(byShape.parameters()) == doctest::Approx(double(byHand.parameters())).epsilon(0.001));
  CHECK(byShape.flopsPerSample == doctest::Approx(byHand.flopsPerSample).epsilon(0.01));
  // 2 s h x 32 layer inputs + one block's s h (34 + 5 a s / h) = 0.537 + 0.956 GB.
  CHECK(double(byShape.activationsPerSample) == doctest::Approx(1.493e9).epsilon(0.001));
  // Without recomputation every block keeps its whole set: 32 x 0.956 GB.
  auto shape = [](const std::string& more) {
    return fromText("transformer: {layers: 32, hidden: 4096, heads: 32, ffn: 11008, vocabulary: 32000, "
                    "sequence: 2048, " + more + "}\n");
  };
  CHECK(double(shape("recomputation: none, attention: standard").activationsPerSample) ==
        doctest::Approx(32 * 0.9563e9).epsilon(0.001));
  // The scores, 5 a s / h of the 34 + 5 a s / h, are what selective
  // recomputation and flash attention do not keep: 32 x s h 34 = 32 x 0.285 GB.
  CHECK(double(shape("recomputation: selective, attention: standard").activationsPerSample) ==
        doctest::Approx(32 * 0.2852e9).epsilon(0.001));
  CHECK(double(shape("recomputation: none").activationsPerSample) == doctest::Approx(32 * 0.2852e9).epsilon(0.001));
  // Full recomputation with flash attention: the inputs and one block without scores.
  CHECK(double(shape("recomputation: full").activationsPerSample) == doctest::Approx(0.537e9 + 0.2852e9).epsilon(0.001));
  // The blocks' compute shares and the head's add up to the whole.
  double shares = 0;
  for (const auto& l : byShape.layers) shares += l.computeShare;
  CHECK(shares == doctest::Approx(1.0));
}

TEST_CASE("a shape that cannot be is refused at its key") {
  auto refused = [](const std::string& text, const std::string& part) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(fromText(text), doctest::Contains(part.c_str()), ConfigError);
  };
  const std::string compute = "compute: {utilization: 0.5}\n";
  refused("transformer: {layers: 2, hidden: 100, heads: 3, ffn: 10, vocabulary: 10, sequence: 8}\n" + compute,
          "hidden must be a multiple of heads");
  refused("transformer: {layers: 2, hidden: 96, heads: 12, kv_heads: 5, ffn: 10, vocabulary: 10, sequence: 8}\n" + compute,
          "kv_heads must divide heads");
  refused("transformer: {layers: 2, hidden: 96, heads: 12, ffn: 10, vocabulary: 10, sequence: 8, experts: 4, top_k: 5}\n" +
              compute,
          "top_k");
  refused("transformer: {layers: 2, hidden: 96, heads: 12, ffn: 10, vocabulary: 10, sequence: 8}\n"
          "layers: [{name: x, parameters: 1}]\n" + compute,
          "layers follows from transformer");
  refused("transformer: {layers: 2, hidden: 96, heads: 12, ffn: 10, vocabulary: 10, sequence: 8}\n"
          "compute: {flops_per_sample: 1T, utilization: 0.5}\n",
          "flops_per_sample");
}
