#!/bin/bash
# From the seed article (shared/seed/), verbatim: a user pastes it as an env file.
# HCCL通信拓扑配置脚本
# 根据集群规模选择合适的通信拓扑和算法

# 强制指定通信算法为Ring（适用于单机8卡场景）
export HCCL_OP_BASE_FUSION_MODE=1

# 设置算法选择策略：0-自动选择，1-强制Ring，2-强制Tree，3-Hierarchical
export HCCL_COMM_ALGO_SELECT=0

# 针对单机8卡场景，优先选择Ring算法
if [ "$WORLD_SIZE" -le 8 ]; then
    export HCCL_COMM_ALGO_SELECT=1
    echo "Single-node training: Ring topology selected"
fi

# 针对2机以上场景，启用Hierarchical分层拓扑
if [ "$WORLD_SIZE" -gt 8 ]; then
    export HCCL_COMM_ALGO_SELECT=3
    # 启用HCCS内Ring + 跨机Tree的分层策略
    export HCCL_INTRA_NODE_ALGO=1   # 机内Ring
    export HCCL_INTER_NODE_ALGO=2   # 跨机Tree (RHD)
    echo "Multi-node training: Hierarchical topology selected"
fi

# 设置通信执行模式
export HCCL_EXEC_MODE=1  # 1-图模式（Graph），0-单算子模式（Op）
