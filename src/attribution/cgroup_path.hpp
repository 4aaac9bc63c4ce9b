#pragma once
// What a process's cgroup says about who runs it: parses the text of /proc/PID/cgroup
// (v1: many "ID:controllers:/path" lines; v2: one "0::/path" line). Pure; no I/O.
//
// Shapes recognised, segment by segment (from real systems; tests/unit/attribution has one
// fixture per shape):
//   docker       /docker/<64hex> (cgroupfs driver), .../docker-<id>.scope (systemd driver)
//   containerd   .../cri-containerd-<id>.scope
//   CRI-O        .../crio-<id>.scope (crio-conmon-<id>.scope is the monitor, not the container)
//   podman       .../libpod-<id>.scope, /libpod_parent/libpod-<id>
//   Kubernetes   kubepods[-<qos>]-pod<uid_with_underscores>.slice (systemd), /kubepods/<qos>/pod<uid>/<id>
//   Slurm v1     /slurm/uid_U/job_J/step_S[/task_T]
//   Slurm v2     .../[<node>_]slurmstepd.scope/job_J/step_S/...
// Inside a cgroup namespace a process sees "0::/": nothing can be said, and nothing is.
#include <string>
#include <string_view>

#include "attribution/attribution.hpp"

namespace gpuwatch::attribution {

// What one cgroup path says (an absent member: the path does not say).
Attribution parse_cgroup_path(std::string_view path);

// What the whole /proc/PID/cgroup file says: the paths of every line, merged (the first line
// that says a thing wins). Malformed lines are skipped.
Attribution parse_cgroup_file(std::string_view content);

}  // namespace gpuwatch::attribution
