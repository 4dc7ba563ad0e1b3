# NCCL settings of an nccl-tests run: LL128 and Simple only, at most 8
# channels, the ring and the tree (NCCL_DEBUG has no effect on time).
export NCCL_PROTO=^LL
export NCCL_MAX_NCHANNELS=8
export NCCL_ALGO=Ring,Tree
export NCCL_DEBUG=INFO
