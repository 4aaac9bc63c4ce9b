#pragma once
// dcgm-exporter's attribution labels (issue 15): pod, namespace, container, hpc_job. Only
// those with a value are added (an empty label is no label in Prometheus).
#include <string>

#include "attribution/gpu_owners.hpp"

namespace gpuwatch::exporter {

void add_owner_labels(std::string& labels, const attribution::OwnerLabels& owners);

}  // namespace gpuwatch::exporter
