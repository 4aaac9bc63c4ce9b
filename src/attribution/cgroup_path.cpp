#include "attribution/cgroup_path.hpp"

#include <algorithm>
#include <vector>

namespace gpuwatch::attribution {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_hex_id(std::string_view s, std::size_t min_length) {
  return s.size() >= min_length && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_decimal(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    auto slash = path.find('/');
    auto segment = path.substr(0, slash);
    if (!segment.empty()) out.push_back(segment);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// "<prefix><id>.scope" -> id, when id is hex (12 characters at least).
std::optional<std::string> scope_id(std::string_view segment, std::string_view prefix) {
  if (!starts_with(segment, prefix)) return std::nullopt;
  segment.remove_prefix(prefix.size());
  if (ends_with(segment, ".scope")) segment.remove_suffix(6);
  if (!is_hex_id(segment, 12)) return std::nullopt;
  return std::string(segment);
}

// A pod UID as the API prints it: systemd slices write its dashes as underscores.
std::string pod_uid_of(std::string_view raw) {
  std::string uid(raw);
  std::replace(uid.begin(), uid.end(), '_', '-');
  return uid;
}

bool is_qos(std::string_view s) { return s == "burstable" || s == "besteffort" || s == "guaranteed"; }

void read_pod_segment(std::string_view segment, Attribution& out) {
  if (starts_with(segment, "kubepods") && ends_with(segment, ".slice")) {  // systemd driver
    auto pod = segment.find("-pod");
    if (pod == std::string_view::npos) {  // kubepods-burstable.slice: the QoS slice
      auto dash = segment.find('-');
      if (dash != std::string_view::npos) {
        auto qos = segment.substr(dash + 1, segment.size() - 6 - dash - 1);
        if (is_qos(qos)) out.pod_qos = std::string(qos);
      }
      return;
    }
    auto uid = segment.substr(pod + 4, segment.size() - 6 - (pod + 4));
    if (!uid.empty()) out.pod_uid = pod_uid_of(uid);
    auto qos = segment.substr(0, pod);  // kubepods or kubepods-<qos>
    if (qos == "kubepods") {
      out.pod_qos = "guaranteed";
    } else if (starts_with(qos, "kubepods-") && is_qos(qos.substr(9))) {
      out.pod_qos = std::string(qos.substr(9));
    }
    return;
  }
  if (starts_with(segment, "pod") && segment.size() > 3) out.pod_uid = pod_uid_of(segment.substr(3));  // cgroupfs
}

}  // namespace

Attribution parse_cgroup_path(std::string_view path) {
  Attribution out;
  auto parts = segments(path);
  bool in_kubepods = false, in_slurm_v1 = false, in_slurm_v2 = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string_view s = parts[i];
    if (s == "kubepods" || starts_with(s, "kubepods")) {
      in_kubepods = true;
      read_pod_segment(s, out);
      continue;
    }
    if (in_kubepods && !out.pod_uid) {
      if (is_qos(s)) {
        out.pod_qos = std::string(s);
        continue;
      }
      if (starts_with(s, "pod")) {
        read_pod_segment(s, out);
        if (!out.pod_qos) out.pod_qos = "guaranteed";  // cgroupfs: guaranteed pods sit right under kubepods
        continue;
      }
    }
    if (s == "slurm") in_slurm_v1 = true;
    if (s == "slurmstepd.scope" || ends_with(s, "_slurmstepd.scope")) in_slurm_v2 = true;
    if (in_slurm_v1 || in_slurm_v2) {
      if (starts_with(s, "uid_") && is_decimal(s.substr(4))) out.slurm_user = std::string(s.substr(4));
      if (starts_with(s, "job_") && s.size() > 4) out.slurm_job_id = std::string(s.substr(4));
      if (starts_with(s, "step_") && s.size() > 5) out.slurm_step = std::string(s.substr(5));
      continue;
    }
    if (s == "docker" && i + 1 < parts.size() && is_hex_id(parts[i + 1], 64)) {  // docker, cgroupfs driver
      out.runtime = Runtime::Docker;
      out.container_id = std::string(parts[i + 1]);
      ++i;
      continue;
    }
    if (auto id = scope_id(s, "docker-")) {
      out.runtime = Runtime::Docker;
      out.container_id = id;
    } else if (auto cri = scope_id(s, "cri-containerd-")) {
      out.runtime = Runtime::Containerd;
      out.container_id = cri;
    } else if (auto crio = scope_id(s, "crio-")) {  // crio-conmon-<id> fails the hex test: skipped
      out.runtime = Runtime::CriO;
      out.container_id = crio;
    } else if (auto podman = scope_id(s, "libpod-")) {
      out.runtime = Runtime::Podman;
      out.container_id = podman;
    } else if (in_kubepods && out.pod_uid && is_hex_id(s, 64)) {  // cgroupfs: /kubepods/<qos>/pod<uid>/<id>
      out.container_id = std::string(s);
    }
  }
  return out;
}

Attribution parse_cgroup_file(std::string_view content) {
  Attribution out;
  while (!content.empty()) {
    auto end = content.find('\n');
    std::string_view line = content.substr(0, end);
    content.remove_prefix(end == std::string_view::npos ? content.size() : end + 1);
    // hierarchy-ID:controller-list:path; the path itself may hold ':'.
    auto first = line.find(':');
    if (first == std::string_view::npos) continue;
    auto second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    merge_into(out, parse_cgroup_path(line.substr(second + 1)));
  }
  return out;
}

}  // namespace gpuwatch::attribution
