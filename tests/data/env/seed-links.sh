#!/bin/bash
# From the seed article (shared/seed/), verbatim: a user pastes it as an env file.
# HCCL互连链路性能调优配置
# 适用于混合HCCS+RoCE部署场景

# === HCCS链路配置 ===
# 启用HCCS流控优化，减少片间传输的等待开销
export HCCL_HCCS_FLOW_CTRL_ENABLE=1

# HCCS传输队列深度，增大可提升并发吞吐
export HCCL_HCCS_QUEUE_DEPTH=8

# === RoCE链路配置 ===
# RoCE传输使用单个QP（Queue Pair）
export HCCL_ROCE_QP_NUM=1

# RoCE MTU配置，匹配网卡MTU设置
export HCCL_ROCE_MTU=4096

# RoCE发送接收缓冲区大小（单位：字节）
export HCCL_ROCE_BUF_SIZE=33554432  # 32MB

# === 通信域划分 ===
# 强制按节点划分通信域（Hierarchical拓扑的基础）
export HCCL_GROUP_SPLIT=NODE

# 每个跨机通信域的设备数（对应每台服务器NPU数量）
export HCCL_INTER_NODE_DEVS=8
