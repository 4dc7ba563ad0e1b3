// Runs all streams of one rank's part of a schedule: one thread per stream
// (each with its own transport endpoint), ordered by their Wait operations.
#pragma once

#include <functional>
#include <memory>

#include "algorithms/transports/schedule_runner.h"

namespace collsim {

// `endpoint(stream)` gives the transport a stream uses; each stream tags its
// messages from streamTagBase(stream) on. Rethrows the first failure of any stream.
void runRankStreams(const Schedule& schedule, std::byte* buffer, const RunOptions& options,
                    const std::function<std::unique_ptr<Transport>(int stream)>& endpoint);

} // namespace collsim
