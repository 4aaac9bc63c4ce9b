#include "exporter/owner_labels.hpp"

#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {

void add_owner_labels(std::string& labels, const attribution::OwnerLabels& owners) {
  if (!owners.pod.empty()) add_label(labels, "pod", owners.pod);
  if (!owners.pod_namespace.empty()) add_label(labels, "namespace", owners.pod_namespace);
  if (!owners.container.empty()) add_label(labels, "container", owners.container);
  if (!owners.hpc_job.empty()) add_label(labels, "hpc_job", owners.hpc_job);
}

}  // namespace gpuwatch::exporter
