// The network models, registered by name with what each is for: the one
// place that knows them all (scenarios say `fidelity: NAME`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/network/network.h"

namespace collsim {

struct NetworkModelEntry {
  Fidelity fidelity;
  const char* name;
  const char* description;
  std::unique_ptr<Network> (*make)(EventEngine& engine, const Cluster& cluster, const NetworkOptions& options);
};

const std::vector<NetworkModelEntry>& networkModels();
const char* fidelityName(Fidelity f);
bool parseFidelity(const std::string& name, Fidelity& out);
// "fast (large segments ...), packet (...)": for messages.
std::string describeNetworkModels();

std::unique_ptr<Network> makeNetwork(EventEngine& engine, const Cluster& cluster, const NetworkOptions& options);

} // namespace collsim
