#include "sim/config/key_registry.h"

#include <algorithm>
#include <stdexcept>

namespace collsim {
namespace {

constexpr InputKind S = InputKind::Scenario;
constexpr InputKind R = InputKind::SelectorRules;
constexpr InputKind G = InputKind::SelectorGrid;
constexpr InputKind F = InputKind::Schedule;

// Defaults are the readers' (sim/config/*.cpp, sim/scenario, sim/selector);
// "preset" means the named device, library or DCQCN preset's own figure.
const std::vector<DeclaredKey> kKeys = {
    // A scenario file's root.
    {S, "", "", "name", "text", "scenario", "the study's name in reports"},
    {S, "", "", "description", "text", "-", "one line shown under the name"},
    {S, "", "", "cluster", "mapping or file", "required", "the cluster (a cluster file's keys, below)"},
    {S, "", "", "op", "one of: allreduce, reducescatter, allgather, broadcast, reduce, alltoall", "required",
     "the collective (training studies: allreduce)"},
    {S, "", "", "algo", "name, list, all, auto or file:PATH", "required", "algorithms to run (collsim algorithms)"},
    {S, "", "", "sizes", "bytes, list or {min, max, factor}", "required", "message sizes (not in training studies)"},
    {S, "", "", "dtype", "one of: int8, int32, float16, bfloat16, float32, float64", "float32", "element type"},
    {S, "", "", "root", "integer 0-ranks", "0", "root rank of broadcast and reduce"},
    {S, "", "", "simulation", "mapping", "-", "how the network is simulated"},
    {S, "", "", "training", "mapping", "-", "a training step instead of a collective sweep"},
    {S, "", "", "hccl", "mapping", "-", "HCCL settings given as keys"},
    {S, "", "", "variants", "list", "-", "named points, each a mapping of --set keys"},
    {S, "", "", "sweep", "mapping", "-", "dotted keys swept over values: a grid of points"},
    {S, "", "", "reference", "mapping", "-", "published figures to compare with"},
    {S, "", "", "plan", "mapping", "-", "the layouts collsim plan searches"},
    {S, "", "", "measured", "mapping", "-", "a measured figure of this run, for collsim calibrate"},
    {S, "sizes", "", "min", "bytes", "required", "smallest size"},
    {S, "sizes", "", "max", "bytes", "required", "largest size"},
    {S, "sizes", "", "factor", "number > 1", "2", "size multiplier"},
    {S, "simulation", "", "fidelity", "one of: fast, packet", "fast", "large segments, or RoCE packets with ECN, PFC, DCQCN"},
    {S, "simulation", "", "segment", "bytes", "1MiB", "segment size of the fast network model"},
    {S, "simulation", "", "verify", "boolean", "true", "check each schedule symbolically before it runs"},
    {S, "simulation", "", "seed", "integer >= 0", "1", "random seed of the jitter draws"},
    {S, "simulation", "", "channels", "integer 1-64", "1", "run each collective as this many channels"},
    {S, "simulation", "", "symmetry", "one of: on, off", "on", "alike devices simulated once (DP replicas, TP positions, a collective's servers)"},
    {S, "hccl", "", "buffer_size", "bytes", "-", "HCCL_BUFFSIZE: larger data runs in loops of it"},
    {S, "reference", "", "source", "text", "-", "where the published figures come from"},
    {S, "reference", "", "tolerance", "number > 0", "-", "the relative error accepted, e.g. 0.2"},
    {S, "reference", "", "notes", "mapping", "-", "a note per figure"},
    {S, "variants[]", "", "name", "text", "required", "the variant's name in reports"},
    {S, "variants[]", "", "set", "mapping", "-", "dotted keys and their values for this variant"},
    {S, "variants[]", "", "reference", "mapping", "-", "published figures of this variant"},
    {S, "variants[]", "", "measured", "mapping", "-", "a measured figure of this variant"},
    {S, "sweep.<key>", "range", "from", "integer", "required", "first value (a list of values also works)"},
    {S, "sweep.<key>", "range", "to", "integer", "required", "last value"},
    {S, "sweep.<key>", "range", "step", "integer >= 1", "1", "increment"},
    {S, "sweep.<key>", "geometric", "min", "number or bytes", "required", "first value"},
    {S, "sweep.<key>", "geometric", "max", "number or bytes", "required", "last value"},
    {S, "sweep.<key>", "geometric", "factor", "number > 1", "2", "multiplier"},

    // A cluster (`cluster:` inline, or a cluster file).
    {S, "cluster", "", "name", "text", "cluster", "the cluster's name in reports"},
    {S, "cluster", "", "description", "text", "-", "one line shown in reports"},
    {S, "cluster", "", "servers", "integer 1-1048576", "1", "servers in the cluster"},
    {S, "cluster", "", "devices", "integer 1-1048576", "required", "devices per server"},
    {S, "cluster", "", "scale_up", "mapping", "required", "the links inside a server (HCCS, NVLink)"},
    {S, "cluster", "", "hccs", "mapping", "-", "alias of scale_up"},
    {S, "cluster", "", "inter_group", "mapping", "-", "the link between the two groups of shape 2x4"},
    {S, "cluster", "", "device", "mapping, file or preset name", "ascend-910", "the devices (collsim calibrate writes one)"},
    {S, "cluster", "", "nic", "mapping", "a NIC per device", "where the NICs sit"},
    {S, "cluster", "", "scale_out", "mapping", "-", "the network between servers (RoCE, InfiniBand)"},
    {S, "cluster", "", "roce", "mapping", "-", "alias of scale_out"},
    {S, "cluster", "", "fabric", "mapping", "one switch", "the switches between servers"},
    {S, "cluster", "", "tiers", "list", "-", "instead of scale_up, scale_out and fabric: every tier, the servers' own first"},
    {S, "cluster", "", "intra_server_roce", "boolean", "false", "devices of one server also talk over the NICs"},
    {S, "cluster", "", "library", "mapping or name: ideal, nccl, hccl", "ideal", "the collective library"},
    {S, "cluster.scale_up", "", "name", "text", "scale-up (HCCS under hccs:)", "the links' name in outputs"},
    {S, "cluster.scale_up", "", "shape", "one of: ring, mesh, 2x4, links, switch", "required", "how the devices are joined"},
    {S, "cluster.scale_up", "", "bandwidth", "bandwidth", "required", "per direction of a link"},
    {S, "cluster.scale_up", "", "latency", "time", "required", "per link"},
    {S, "cluster.scale_up", "", "efficiency", "share (0, 1]", "1", "share of the line rate that carries data"},
    {S, "cluster.scale_up", "", "links", "list of [a, b]", "-", "shape links: the device pairs joined"},
    {S, "cluster.scale_up", "", "jitter", "mapping or none", "uniform [0, 20ns]", "extra delay per packet per hop"},
    {S, "cluster.scale_up", "", "reduce", "boolean", "false", "shape switch: the switch reduces (NVLS)"},
    {S, "cluster.scale_up", "", "reduce_efficiency", "share (0, 1]", "1", "a reducing switch's rate, as a share of its ports'"},
    {S, "cluster.inter_group", "", "bandwidth", "bandwidth", "required", "per direction"},
    {S, "cluster.inter_group", "", "latency", "time", "required", "per link"},
    {S, "cluster.<link>.jitter", "uniform", "uniform", "[time, time]", "-", "delay uniform in [low, high]"},
    {S, "cluster.<link>.jitter", "lognormal", "median", "time", "required", "lognormal body's median"},
    {S, "cluster.<link>.jitter", "lognormal", "sigma", "number >= 0", "0.5", "lognormal body's sigma"},
    {S, "cluster.<link>.jitter", "lognormal", "tail_fraction", "probability", "0", "share of packets drawn from the Pareto tail"},
    {S, "cluster.<link>.jitter", "lognormal", "tail_scale", "time", "required with tail_fraction", "Pareto tail's scale"},
    {S, "cluster.<link>.jitter", "lognormal", "tail_shape", "number > 0", "2", "Pareto tail's shape"},
    {S, "cluster.scale_out", "", "name", "text", "scale-out (RoCE under roce:)", "the network's name in outputs"},
    {S, "cluster.scale_out", "", "bandwidth", "bandwidth", "required", "per NIC and direction"},
    {S, "cluster.scale_out", "", "latency", "time", "required", "per hop"},
    {S, "cluster.scale_out", "", "efficiency", "share (0, 1]", "1", "share of the line rate that carries data"},
    {S, "cluster.scale_out", "", "mtu", "integer 256-4096, a power of 2", "4096", "payload bytes per packet"},
    {S, "cluster.scale_out", "", "queue_pairs", "integer 1-256", "1", "QPs per connection (HCCL_RDMA_QPS_PER_CONNECTION)"},
    {S, "cluster.scale_out", "", "buffer", "bytes", "4MiB", "switch buffer per egress port"},
    {S, "cluster.scale_out", "", "retransmit_timeout", "time", "1ms", "go-back-N after this long without progress"},
    {S, "cluster.scale_out", "", "ack_every", "integer 1-1048576", "64", "the receiver acknowledges every n packets"},
    {S, "cluster.scale_out", "", "dcqcn", "mapping, preset or off", "connectx", "the NICs' congestion control"},
    {S, "cluster.scale_out", "", "ecn", "mapping or off", "the DCQCN preset's", "switch ECN marking"},
    {S, "cluster.scale_out", "", "pfc", "mapping, on or off", "off", "priority flow control"},
    {S, "cluster.scale_out", "", "jitter", "mapping or none", "none", "extra delay per packet per hop"},
    {S, "cluster.scale_out", "", "switches", "mapping", "-", "ECN and buffer per switch (name or prefix: spine, leaf)"},
    {S, "cluster.scale_out.dcqcn", "", "preset", "one of: connectx, paper, off", "connectx",
     "ConnectX firmware defaults, or Zhu et al. 2015"},
    {S, "cluster.scale_out.dcqcn", "", "g", "share (0, 1]", "preset", "alpha's gain per alpha period"},
    {S, "cluster.scale_out.dcqcn", "", "cnp_interval", "time", "preset", "at most one CNP per QP per interval"},
    {S, "cluster.scale_out.dcqcn", "", "alpha_period", "time", "preset", "alpha update period"},
    {S, "cluster.scale_out.dcqcn", "", "increase_period", "time", "preset", "rate increase timer"},
    {S, "cluster.scale_out.dcqcn", "", "decrease_period", "time", "preset", "CNPs in a period cut once (0: each CNP)"},
    {S, "cluster.scale_out.dcqcn", "", "clamp_target", "boolean", "preset", "a cut sets the target rate to the current"},
    {S, "cluster.scale_out.dcqcn", "", "clamp_after_timer", "boolean", "preset", "with clamp_target off: timer increases count"},
    {S, "cluster.scale_out.dcqcn", "", "initial_alpha", "share (0, 1]", "preset", "alpha at the first CNP"},
    {S, "cluster.scale_out.dcqcn", "", "byte_counter", "bytes", "preset", "bytes sent between byte-counter increases"},
    {S, "cluster.scale_out.dcqcn", "", "fast_recovery", "integer 0-1000", "preset", "fast recovery steps"},
    {S, "cluster.scale_out.dcqcn", "", "additive_increase", "bandwidth", "preset", "rate added per additive step"},
    {S, "cluster.scale_out.dcqcn", "", "hyper_increase", "bandwidth", "preset", "rate added per hyper step"},
    {S, "cluster.scale_out.dcqcn", "", "min_rate", "bandwidth", "preset", "the lowest rate a cut leaves"},
    {S, "cluster.scale_out.ecn", "", "kmin", "bytes", "preset", "queue depth where marking starts"},
    {S, "cluster.scale_out.ecn", "", "kmax", "bytes", "preset", "queue depth where every packet is marked"},
    {S, "cluster.scale_out.ecn", "", "pmax", "probability", "preset", "marking probability at kmax"},
    {S, "cluster.scale_out.pfc", "", "xoff", "bytes", "512000", "ingress bytes that pause the sender"},
    {S, "cluster.scale_out.pfc", "", "xon", "bytes", "384000", "ingress bytes that resume it"},
    {S, "cluster.scale_out.switches.<switch>", "", "ecn", "mapping or off", "scale_out.ecn", "this switch's ECN marking"},
    {S, "cluster.scale_out.switches.<switch>", "", "buffer", "bytes", "scale_out.buffer", "this switch's buffer per port"},
    {S, "cluster.tiers[]", "", "name", "text", "scale-up, scale-out, tier 2, ...", "the tier's links' name in outputs"},
    {S, "cluster.tiers[]", "", "shape", "tier 0: as scale_up's; 1: switch or rail; above: switch", "switch (above tier 0)",
     "how the tier joins the one below (tier 0 takes scale_up's keys, 1 scale_out's)"},
    {S, "cluster.tiers[]", "", "bandwidth", "bandwidth", "tiers 0-1: required; above: from oversubscription",
     "per direction of each link up from the tier below"},
    {S, "cluster.tiers[]", "", "latency", "time", "required", "per link"},
    {S, "cluster.tiers[]", "switch", "size", "integer 1-1048576", "all", "groups of the tier below in each group (tier 1: servers)"},
    {S, "cluster.tiers[]", "switch", "switches_per_group", "integer 1-65536", "1", "above tier 1: each on every switch of the group below"},
    {S, "cluster.tiers[]", "switch", "oversubscription", "number > 0", "1", "with no bandwidth: a switch's capacity down over up"},
    {S, "cluster.tiers[]", "switch", "reduce", "boolean", "false", "tier 1, one switch: it reduces (SHARP)"},
    {S, "cluster.tiers[]", "switch", "reduce_efficiency", "share (0, 1]", "1", "a reducing switch's rate, as a share of its ports'"},
    {S, "cluster.nic", "", "per", "one of: device, server", "required", "a NIC per device, or NICs per server"},
    {S, "cluster.nic", "", "count", "integer 1-65536", "1", "per server: NICs in each server"},
    {S, "cluster.nic", "", "pcie", "mapping", "required per server", "per server: the devices' PCIe links to the NICs"},
    {S, "cluster.nic", "", "map", "interleave, block or list", "interleave", "per server: which NIC each device uses"},
    {S, "cluster.nic.pcie", "", "bandwidth", "bandwidth", "required", "per direction of a device's link"},
    {S, "cluster.nic.pcie", "", "latency", "time", "required", "per link"},
    {S, "cluster.nic.pcie", "", "shared", "boolean", "false", "the devices share one uplink to the NICs"},
    {S, "cluster.nic.pcie", "", "uplink", "bandwidth", "required when shared", "the shared uplink's rate"},
    {S, "cluster.fabric", "", "type", "one of: switch, leaf-spine, rail", "required", "how the switches are joined"},
    {S, "cluster.fabric", "", "servers_per_leaf", "integer", "required for leaf-spine", "servers under each leaf"},
    {S, "cluster.fabric", "", "spines", "integer 1-65536", "1", "spine switches"},
    {S, "cluster.fabric", "", "oversubscription", "number > 0", "1", "leaf downlink over uplink capacity (2 = 2:1)"},
    {S, "cluster.fabric", "", "uplink_latency", "time", "0", "per leaf-spine hop"},
    {S, "cluster.fabric", "", "reduce", "boolean", "false", "type switch: the switch reduces (SHARP)"},
    {S, "cluster.fabric", "", "reduce_efficiency", "share (0, 1]", "1", "a reducing switch's rate, as a share of its ports'"},

    // A device (`cluster.device:` inline, a device file or a preset's name).
    {S, "cluster.device", "", "name", "preset name", "ascend-910", "the preset the other keys change"},
    {S, "cluster.device", "", "description", "text", "-", "one line shown in reports"},
    {S, "cluster.device", "", "calibration", "mapping", "-", "what collsim calibrate fitted it to"},
    {S, "cluster.device", "", "step_overhead", "time", "0", "per communication step, on the device"},
    {S, "cluster.device", "", "reduce_bandwidth", "bandwidth or none", "preset", "the collectives' reduction rate"},
    {S, "cluster.device", "", "flops", "flops", "preset", "dense 16-bit peak"},
    {S, "cluster.device", "", "memory_bandwidth", "bandwidth", "preset", "HBM peak"},
    {S, "cluster.device", "", "memory", "bytes", "preset", "HBM capacity"},
    {S, "cluster.device", "", "gemm_efficiency", "share (0, 1]", "preset", "best large GEMM over the peak"},
    {S, "cluster.device", "", "compute_units", "integer 0-65536", "preset", "SMs or AI cores (GEMM tile waves)"},
    {S, "cluster.device", "", "tile", "[rows, columns]", "preset", "a GEMM's output tile"},
    {S, "cluster.device", "", "attention_efficiency", "[forward, backward] shares", "preset",
     "fused attention over the peak, for every kernel"},
    {S, "cluster.device", "", "attention_kernels", "mapping kernel -> [forward, backward]", "preset",
     "per named kernel: flash-1, flash-2, flash-3, flash-triton"},
    {S, "cluster.device", "", "memory_efficiency", "share (0, 1]", "preset", "elementwise kernels over the HBM peak"},
    {S, "cluster.device", "", "layer_overhead", "time", "0", "framework time per layer and micro-batch"},
    {S, "cluster.device.calibration", "", "runs", "integer >= 1", "required", "measured runs behind the figures"},
    {S, "cluster.device.calibration", "", "error", "number >= 0", "required", "expected relative error of a step time"},
    {S, "cluster.device.calibration", "", "source", "text", "-", "the runs' file"},

    // The collective library.
    {S, "cluster.library", "", "name", "one of: ideal, nccl, hccl", "required", "the preset the other keys change"},
    {S, "cluster.library", "", "version", "2.x release", "the newest modelled", "NCCL release whose tuning model applies"},
    {S, "cluster.library", "", "protocol", "auto, a name, A,B or ^A", "auto", "protocols allowed (NCCL_PROTO)"},
    {S, "cluster.library", "", "channels", "integer 1-256", "preset", "most channels (NCCL_MAX_NCHANNELS)"},
    {S, "cluster.library", "", "min_channels", "integer 1-256", "preset", "fewest channels (NCCL_MIN_NCHANNELS)"},
    {S, "cluster.library", "", "compute_units_per_channel", "integer 0-64", "preset", "SMs a channel takes from compute"},
    {S, "cluster.library", "", "launch", "time", "preset", "per collective and device: the host's launch"},
    {S, "cluster.library", "", "nvls_chunk", "bytes", "preset", "in-network algorithms' chunk (NCCL_NVLS_CHUNKSIZE)"},
    {S, "cluster.library", "", "chunk_ladder", "boolean", "false", "NCCL's chunk ladders for NVLS and its tree, per version"},
    {S, "cluster.library", "", "nvls_tree_max_chunk", "bytes", "NCCL's rule", "NVLS tree's largest chunk (NCCL_NVLSTREE_MAX_CHUNKSIZE)"},
    {S, "cluster.library", "", "nvls_latency", "time", "preset", "base latency of a collective reduced in a switch"},
    {S, "cluster.library", "", "protocols", "mapping", "preset", "figures per protocol (LL, LL128, Simple, ...)"},
    {S, "cluster.library.protocols.<protocol>", "", "data_share", "share (0, 1]", "preset", "data share of a line"},
    {S, "cluster.library.protocols.<protocol>", "", "base_latency", "time", "preset", "once per collective"},
    {S, "cluster.library.protocols.<protocol>", "", "hop_intra", "time", "preset", "per message inside a server"},
    {S, "cluster.library.protocols.<protocol>", "", "hop_network", "time", "preset", "per message across servers"},
    {S, "cluster.library.protocols.<protocol>", "", "step_overhead", "time", "preset", "per communicating step, on the device"},
    {S, "cluster.library.protocols.<protocol>", "", "channel_bandwidth", "bandwidth or none", "preset", "most one channel moves"},
    {S, "cluster.library.protocols.<protocol>", "", "bus_bandwidth", "bandwidth or [1, 2, 3+ servers]", "preset",
     "most all channels of a device move"},
    {S, "cluster.library.protocols.<protocol>", "", "lane_efficiency", "share [0, 1]", "preset",
     "share of its links a channel fills"},
    {S, "cluster.library.protocols.<protocol>", "", "chunk", "bytes", "preset", "bytes per rank of one loop"},
    {S, "cluster.library.protocols.<protocol>", "", "wave", "bytes", "preset", "what a channel's threads pass on at once"},
    {S, "cluster.library.protocols.<protocol>", "", "channel_bytes", "bytes", "preset", "a channel per this many bytes"},
    {S, "cluster.library.protocols.<protocol>", "", "channel_bytes_per_rank", "bytes", "preset", "and per rank"},
    {S, "cluster.library.protocols.<protocol>", "", "slots", "integer 0-1024", "preset", "sends in flight per peer"},
    {S, "cluster.library.protocols.<protocol>", "", "in_network", "boolean", "preset", "runs switch-reducing algorithms"},
    {S, "cluster.library.protocols.<protocol>", "", "max_bytes", "bytes or none", "preset", "largest collective it runs"},

    // A training step.
    {S, "training", "", "model", "mapping or file", "required", "the model (a model file's keys, below)"},
    {S, "training", "", "micro_batch", "integer 1-1048576", "the model's", "samples per device per micro-batch"},
    {S, "training", "", "accumulation", "integer 1-65536", "1", "micro-batches per optimizer step"},
    {S, "training", "", "bucket", "bytes", "25MB", "gradient bucket (DDP bucket_cap_mb)"},
    {S, "training", "", "pipeline", "integer 1-65536", "1", "buckets whose AllReduce may be in flight at once"},
    {S, "training", "", "overlap", "boolean or mapping", "the framework's", "what runs beside the compute"},
    {S, "training", "", "selector", "file", "-", "selector rules for algo: auto"},
    {S, "training", "", "parallel", "mapping", "-", "tensor, pipeline, data, expert and context parallelism"},
    {S, "training", "", "framework", "one of: ddp, fsdp, megatron, deepspeed", "ddp", "whose defaults the overlaps take"},
    {S, "training", "", "bucket_copy", "boolean", "on under ddp (ZeRO 0-1)", "copy gradients into each bucket and back"},
    {S, "training.overlap", "", "grad_reduce", "boolean", "the framework's", "reduce gradients during backward"},
    {S, "training.overlap", "", "param_gather", "boolean", "the framework's", "ZeRO 1-2: gather weights beside forward"},
    {S, "training.overlap", "", "param_prefetch", "boolean", "true", "ZeRO 3: gather a layer's weights one pass ahead"},
    {S, "training.overlap", "", "tp_comm", "boolean", "the framework's", "TP collectives pipelined with GEMMs"},
    {S, "training.overlap", "", "tp_wgrad", "boolean", "the framework's", "input-gradient collective beside the wgrad GEMM"},
    {S, "training.parallel", "", "tp", "integer 1-65536", "1", "tensor-parallel degree"},
    {S, "training.parallel", "", "cp", "integer 1-65536", "1", "context parallelism (ring attention)"},
    {S, "training.parallel", "", "pp", "integer 1-65536", "1", "pipeline stages"},
    {S, "training.parallel", "", "dp", "integer 1-16777216", "devices / (tp x cp x pp)", "data-parallel degree"},
    {S, "training.parallel", "", "ep", "integer 1-65536", "1", "expert parallelism inside dp"},
    {S, "training.parallel", "", "expert_imbalance", "number 1-100", "1", "busiest device's expert work over the mean"},
    {S, "training.parallel", "", "zero", "integer 0-3", "0", "ZeRO stage"},
    {S, "training.parallel", "", "micro_batches", "integer 1-65536", "accumulation", "per optimizer step"},
    {S, "training.parallel", "", "schedule", "one of: gpipe, 1f1b, interleaved", "1f1b", "pipeline schedule"},
    {S, "training.parallel", "", "virtual_stages", "integer 2-1024", "2", "interleaved: model chunks per device"},
    {S, "training.parallel", "", "sequence_parallel", "boolean", "false", "Megatron-LM's sequence parallelism"},
    {S, "training.parallel", "", "order", "dims joined by -", "tp-cp-dp-pp", "rank placement, innermost first"},
    {S, "training.parallel", "", "stage_layers", "list of integers", "even", "blocks per stage, first to last"},
    {S, "training.model", "", "name", "text", "model", "the model's name in reports"},
    {S, "training.model", "", "description", "text", "-", "one line shown in reports"},
    {S, "training.model", "", "transformer", "mapping", "-", "the model's shape (or layers)"},
    {S, "training.model", "", "layers", "list", "-", "the model's layers, when not a transformer"},
    {S, "training.model", "", "precision", "mapping", "fp32, Adam", "bytes per parameter of each state"},
    {S, "training.model", "", "micro_batch", "integer 1-1048576", "1", "samples per device per micro-batch"},
    {S, "training.model", "", "activations_per_sample", "bytes", "0", "layers: activation memory per sample"},
    {S, "training.model", "", "compute", "mapping", "-", "how the compute is timed"},
    {S, "training.model.transformer", "", "layers", "integer 1-100000", "required", "transformer blocks"},
    {S, "training.model.transformer", "", "hidden", "integer", "required", "hidden size"},
    {S, "training.model.transformer", "", "heads", "integer", "required", "attention heads (divide hidden)"},
    {S, "training.model.transformer", "", "kv_heads", "integer", "heads", "key-value heads (grouped-query attention)"},
    {S, "training.model.transformer", "", "ffn", "integer", "required", "feed-forward size"},
    {S, "training.model.transformer", "", "vocabulary", "integer", "required", "vocabulary size"},
    {S, "training.model.transformer", "", "sequence", "integer", "required", "tokens per sample"},
    {S, "training.model.transformer", "", "gated_ffn", "boolean", "false", "a gated feed-forward (SwiGLU)"},
    {S, "training.model.transformer", "", "tied_embeddings", "boolean", "false", "the head shares the embeddings"},
    {S, "training.model.transformer", "", "experts", "integer", "1", "MoE experts per layer"},
    {S, "training.model.transformer", "", "top_k", "integer 1-experts", "1", "experts per token"},
    {S, "training.model.transformer", "", "recomputation", "one of: none, selective, full", "none",
     "activation recomputation"},
    {S, "training.model.transformer", "", "attention", "standard, flash or a kernel name", "standard",
     "attention kernel (flash: the device's own)"},
    {S, "training.model.transformer", "", "dropout", "boolean", "false", "dropout masks kept for backward"},
    {S, "training.model.precision", "", "weights", "integer 0-64", "4", "bytes per parameter"},
    {S, "training.model.precision", "", "gradients", "one of: 2, 4, 8", "4", "bytes per parameter"},
    {S, "training.model.precision", "", "master_weights", "integer 0-64", "0", "bytes per parameter of an fp32 copy (mixed precision)"},
    {S, "training.model.precision", "", "optimizer_state", "integer 0-64", "8", "bytes per parameter (Adam: 8)"},
    {S, "training.model.precision", "", "accumulation", "integer 0-64", "0", "bytes per parameter of a gradient buffer"},
    {S, "training.model.compute", "", "utilization", "share (0, 1]", "required with flops", "achieved share of the peak"},
    {S, "training.model.compute", "", "backward_factor", "number >= 0", "2", "backward time over forward"},
    {S, "training.model.compute", "layers", "forward", "time", "-", "forward time per sample"},
    {S, "training.model.compute", "layers", "backward", "time", "forward x backward_factor", "backward time per sample"},
    {S, "training.model.compute", "layers", "flops_per_sample", "count", "-", "forward FLOPs per sample"},
    {S, "training.model.layers[]", "", "name", "text", "required", "the layer's name"},
    {S, "training.model.layers[]", "", "parameters", "count", "required", "its parameters"},
    {S, "training.model.layers[]", "", "compute", "share [0, 1]", "by parameters", "its share of the compute"},
    {S, "training.model.layers[]", "", "repeat", "integer 1-100000", "1", "copies of it"},

    // A plan's search space.
    {S, "plan", "", "global_batch", "integer", "required", "samples per optimizer step"},
    {S, "plan", "", "tp", "integers", "divisors of heads and a server", "tensor-parallel degrees to try"},
    {S, "plan", "", "pp", "integers", "divisors of the layers", "pipeline stages to try"},
    {S, "plan", "", "ep", "integers", "1 (MoE: divisors of the experts)", "expert-parallel degrees to try"},
    {S, "plan", "", "cp", "integers", "1", "context-parallel degrees to try"},
    {S, "plan", "", "expert_imbalance", "number 1-100", "1", "busiest device's expert work over the mean"},
    {S, "plan", "", "micro_batch", "integers", "the model's", "micro-batch sizes to try"},
    {S, "plan", "", "zero", "integers 0-3", "0, 1, 2, 3", "ZeRO stages to try"},
    {S, "plan", "", "schedule", "gpipe, 1f1b, interleaved (list)", "1f1b", "pipeline schedules to try"},
    {S, "plan", "", "virtual_stages", "integers 2-1024", "2", "interleaved: chunks per device to try"},
    {S, "plan", "", "sequence_parallel", "boolean", "true", "Megatron-LM's sequence parallelism under tp > 1"},
    {S, "plan", "", "tp_across_servers", "boolean", "false", "allow TP groups to span servers"},
    {S, "plan", "", "recomputation", "none, selective, full (list)", "the model's", "recomputation to try"},

    // A measured run, for collsim calibrate.
    {S, "measured", "", "step_time", "time", "-", "the measured step time (one figure of these five)"},
    {S, "measured", "", "tokens_per_second", "count", "-", "over all devices"},
    {S, "measured", "", "samples_per_second", "count", "-", "over all devices"},
    {S, "measured", "", "tflops_per_device", "number", "-", "TFLOP/s per device (with flops)"},
    {S, "measured", "", "mfu", "share (0, 1]", "-", "model FLOPs utilization (with flops)"},
    {S, "measured", "", "flops", "one of: model, hardware, causal, 6n", "required with mfu", "how FLOPs were counted"},
    {S, "measured", "", "peak", "flops", "the device's", "the peak an mfu is a share of"},
    {S, "measured", "", "source", "text", "-", "where the figure comes from"},
    {S, "measured", "", "profile", "file", "-", "a Kineto or msprof profile of the run"},
    {S, "measured", "", "device", "integer", "the lowest", "which device of the profile"},

    // A selector rules file.
    {R, "", "", "name", "text", "rules", "the rules' name"},
    {R, "", "", "description", "text", "-", "one line shown in reports"},
    {R, "", "", "rules", "list", "required", "first match wins"},
    {R, "", "", "fallback", "one of: closed-form", "closed-form", "what decides when no rule matches"},
    {R, "", "", "derived_from", "mapping", "-", "the grid collsim selector derive read"},
    {R, "derived_from", "", "grid", "file", "required", "the grid file"},
    {R, "derived_from", "", "fingerprint", "text", "required", "its fingerprint, to see it changed"},
    {R, "rules[]", "", "name", "text", "required", "the rule's name"},
    {R, "rules[]", "", "source", "text", "guess", "where the rule comes from"},
    {R, "rules[]", "", "when", "mapping", "always", "the conditions, all of which must hold"},
    {R, "rules[]", "", "algo", "algorithm name", "required", "the algorithm it picks"},
    {R, "rules[].when", "", "op", "collective or list", "any", "the collectives"},
    {R, "rules[].when", "", "bytes", "bytes or {min, max}", "any", "message size"},
    {R, "rules[].when", "", "ranks", "integer or {min, max}", "any", "ranks"},
    {R, "rules[].when", "", "servers", "integer or {min, max}", "any", "servers"},
    {R, "rules[].when", "", "devices", "integer or {min, max}", "any", "devices per server"},
    {R, "rules[].when", "", "slice_bytes", "bytes or {min, max}", "any", "bytes per rank"},
    {R, "rules[].when", "", "servers_power_of_two", "boolean", "any", "the server count is a power of two"},
    {R, "rules[].when", "", "hccs", "ring, mesh, 2x4, links (list)", "any", "the scale-up shape"},
    {R, "rules[].when", "", "fabric", "none, switch, leaf-spine, rail (list)", "any", "the fabric"},
    {R, "rules[].when.<condition>", "", "min", "integer or bytes", "no bound", "smallest value"},
    {R, "rules[].when.<condition>", "", "max", "integer or bytes", "no bound", "largest value"},

    // A selector grid file.
    {G, "", "", "name", "text", "grid", "the grid's name"},
    {G, "", "", "description", "text", "-", "one line shown in reports"},
    {G, "", "", "ops", "list of collectives", "required", "collectives to time"},
    {G, "", "", "sizes", "list of bytes", "required", "sizes to time"},
    {G, "", "", "clusters", "list", "required", "clusters to time"},
    {G, "clusters[]", "", "base", "file", "required", "a cluster file"},
    {G, "clusters[]", "", "servers", "integer or list", "the file's", "server counts"},
    {G, "clusters[]", "", "devices", "integer or list", "the file's", "devices per server"},

    // A schedule file (collsim schedule; docs/model.md).
    {F, "", "", "collsim_schedule", "1", "required", "the format's version"},
    {F, "", "", "name", "text", "-", "the algorithm's name"},
    {F, "", "", "collective", "collective", "required", "what it computes"},
    {F, "", "", "ranks", "integer", "required", "ranks it is written for"},
    {F, "", "", "chunks", "integer", "required", "chunks the data is cut into"},
    {F, "", "", "root", "integer", "0", "root rank of broadcast and reduce"},
    {F, "", "", "program", "list", "required", "each rank's steps, per stream"},
    {F, "program[]", "", "rank", "integer", "required", "the rank"},
    {F, "program[]", "", "stream", "integer 0-63", "0", "the stream"},
    {F, "program[]", "", "steps", "list of lists of operations", "required", "[send|recv|recv_reduce, peer, chunk(, chunks)] or [wait, stream, steps]"},
};

} // namespace

const char* inputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::Scenario: return "scenario";
  case InputKind::SelectorRules: return "selector-rules";
  case InputKind::SelectorGrid: return "selector-grid";
  case InputKind::Schedule: return "schedule";
  }
  return "?";
}

std::string DeclaredKey::path() const { return *section ? std::string(section) + "." + key : std::string(key); }

// A `tiers:` item takes the keys of the section it stands for: tier 0
// scale_up's, tier 1 scale_out's (forms "scale-up" and "scale-out"), each
// declared there once and registered here too, beside the tiers' own.
std::vector<DeclaredKey> withTierKeys(std::vector<DeclaredKey> keys) {
  auto tiersOwn = [&](const char* key) {
    return std::any_of(keys.begin(), keys.end(), [&](const DeclaredKey& k) {
      return std::string_view(k.section) == "cluster.tiers[]" && !*k.form && std::string_view(k.key) == key;
    });
  };
  std::vector<DeclaredKey> added;
  for (const DeclaredKey& k : keys) {
    const std::string_view section = k.section;
    const char* form = section == "cluster.scale_up" ? "scale-up" : section == "cluster.scale_out" ? "scale-out" : nullptr;
    if (form && !tiersOwn(k.key)) added.push_back({k.file, "cluster.tiers[]", form, k.key, k.type, k.fallback, k.help});
  }
  keys.insert(keys.end(), added.begin(), added.end());
  return keys;
}

const std::vector<DeclaredKey>& declaredKeys() {
  static const std::vector<DeclaredKey> keys = withTierKeys(kKeys);
  return keys;
}

std::vector<std::string> declaredKeysOf(InputKind file, std::string_view section, std::string_view form) {
  std::vector<std::string> keys;
  bool known = false;
  for (const DeclaredKey& k : declaredKeys()) {
    if (k.file != file || section != k.section) continue;
    known = true;
    if (!*k.form || form == k.form) keys.emplace_back(k.key);
  }
  if (!known)
    throw std::logic_error("collsim declares no keys for section '" + std::string(section) + "' of a " +
                           inputKindName(file) + " (sim/config/key_registry.cpp)");
  return keys;
}

std::vector<std::string> pathSegments(std::string_view path) {
  std::vector<std::string> out;
  if (path.empty()) return out;
  for (std::size_t start = 0;;) {
    std::size_t dot = path.find('.', start);
    out.emplace_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

bool segmentNames(std::string_view typed, std::string_view declared) {
  if (declared.size() > 2 && declared.substr(declared.size() - 2) == "[]" && typed.substr(typed.size() < 2 ? 0 : typed.size() - 2) != "[]")
    declared.remove_suffix(2);
  if (typed == declared || (!declared.empty() && declared.front() == '<')) return true;
  return (typed == "hccs" && declared == "scale_up") || (typed == "roce" && declared == "scale_out");
}

bool leadsTo(const std::vector<std::string>& typed, const DeclaredKey& key) {
  const std::vector<std::string> declared = pathSegments(key.path());
  if (typed.size() > declared.size()) return false;
  for (std::size_t i = 0; i < typed.size(); ++i)
    if (!segmentNames(typed[i], declared[i])) return false;
  return true;
}

} // namespace collsim
