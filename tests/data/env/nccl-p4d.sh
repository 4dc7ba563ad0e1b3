# The p4d run's settings (aws-samples/aws-efa-eks, examples/simple/nccl-efa-tests.yaml:
# mpirun -x NCCL_ALGO=RING -x FI_EFA_USE_DEVICE_RDMA=1 ... all_reduce_perf -b 8 -e 1G -f 2 -g 1 -n 1000).
export NCCL_ALGO=RING
