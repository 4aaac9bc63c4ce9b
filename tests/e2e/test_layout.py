"""The code layout stays one folder per capability (README "Code layout").

- `src/cli/` holds only flags and wiring: `<verb>_command.cpp`, `main.cpp`, `app.*` and a few
  small option helpers; logic lives in the capability folders.
- No folder hides a family of files behind a shared prefix (`record_*`, `status_*`): such a
  family is a folder in disguise.
- Third-party and system headers stay in their one folder each: `<dlfcn.h>` in nvml/ (and the
  optional-module loader, core/optional_module.cpp), SQLite in store/, the HTTP libraries
  (Boost.Beast/Asio) in exporter/, cpp-httplib in the gpuwatch-remote-http module
  (remote/remote_module/), the terminal library in tui/, libcurl in the
  gpuwatch-curl module (notify/curl_module/), gRPC and protobuf in the gpuwatch-kubelet module
  (attribution/kubelet_module/): what the binary links never includes them.
- Unit tests mirror the source folders: tests/unit/<folder>/ for src/<folder>/.
"""
import collections
import os
import re

SRC = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "src")
TESTS = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "tests", "unit")

CLI_WIRING = {"main.cpp", "app.cpp", "app.hpp", "command.hpp", "exit_codes.hpp", "global_options.hpp",
              "open_backends.cpp", "open_backends.hpp", "storage_options.cpp", "storage_options.hpp",
              "alert_options.cpp", "alert_options.hpp", "energy_options.cpp", "energy_options.hpp",
              "simulation_setup.cpp", "did_you_mean.cpp", "did_you_mean.hpp", "duration_option.cpp",
              "duration_option.hpp", "attribution_options.cpp", "attribution_options.hpp",
              "owner_options.cpp", "owner_options.hpp",
              "timeout_option.cpp", "timeout_option.hpp", "hung_exit.cpp", "hung_exit.hpp",
              "command_error.cpp", "command_error.hpp"}

ONLY_IN = {
    r"#include\s*<dlfcn\.h>": ("nvml", "core/optional_module.cpp", "sim_session/simulated_vendor_tree.cpp",
                               "intel/level_zero_library.cpp"),
    r"#include\s*[<\"](sqlite3\.h|SQLiteCpp/)": "store",
    r"#include\s*[<\"]httplib\.h": "remote/remote_module",
    r"#include\s*[<\"]boost/(asio|beast)": "exporter",  # the HTTP server, in exporter/http/*.cpp
    r"#include\s*[<\"](ncurses|curses)": "tui",
    r"#include\s*[<\"]curl/": "notify/curl_module",
    r"#include\s*[<\"](grpcpp/|grpc/|google/protobuf/)": "attribution/kubelet_module",
}


def sources():
    for folder in sorted(os.listdir(SRC)):
        path = os.path.join(SRC, folder)
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith((".cpp", ".hpp")):
                    yield folder, name, os.path.join(path, name)


def test_cli_holds_only_flags_and_wiring():
    stray = [name for folder, name, _ in sources()
             if folder == "cli" and name not in CLI_WIRING and not name.endswith("_command.cpp")]
    assert stray == [], f"logic in src/cli/ belongs in a capability folder: {stray}"


def test_no_prefix_families():
    for folder in os.listdir(SRC):
        path = os.path.join(SRC, folder)
        if not os.path.isdir(path) or folder == "cli":
            continue
        stems = {os.path.splitext(n)[0] for n in os.listdir(path) if n.endswith((".cpp", ".hpp"))}
        prefixes = collections.Counter(s.split("_")[0] for s in stems if "_" in s)
        # A prefix shared by 4 or more units that is itself the name of another folder or a
        # command is a folder in disguise.
        # store/'s history_* are the store's own tables and queries: the store is the history.
        allowed = {"store": {"history"}}.get(folder, set())
        families = {p: n for p, n in prefixes.items() if p not in allowed
                    and n >= 4 and p in {"status", "query", "dmon", "pmon", "record", "history", "report",
                                        "serve", "sim", "terminal", "diagnose", "alert", "top", "run"}}
        assert families == {}, f"src/{folder}/ has file families {families}: give each its folder"


def all_sources():
    """Every .cpp/.hpp under src/, subfolders (the modules) included, as a path relative to src/."""
    for root, _, names in os.walk(SRC):
        for name in sorted(names):
            if name.endswith((".cpp", ".hpp")):
                path = os.path.join(root, name)
                yield os.path.relpath(path, SRC), path


def test_system_headers_stay_in_their_folder():
    checked = 0
    for relative, path in all_sources():
        text = open(path, encoding="utf-8").read()
        for pattern, owners in ONLY_IN.items():
            owners = (owners,) if isinstance(owners, str) else owners
            if re.search(pattern, text):
                checked += 1
                assert any(relative == o or relative.startswith(o + "/") for o in owners), \
                    f"src/{relative} includes what only src/{' or src/'.join(owners)} may"
    assert checked >= 7  # every pattern above is used somewhere


def test_unit_test_folders_mirror_source_folders():
    known = set(os.listdir(SRC)) | {"sim"}
    stray = [f for f in os.listdir(TESTS) if os.path.isdir(os.path.join(TESTS, f)) and f not in known]
    assert stray == [], f"tests/unit/ folders with no src/ folder of that name: {stray}"


def test_tui_does_not_include_the_exporter():
    """`top` reads the live view (live/view.hpp), not the Prometheus encoder (issue 27)."""
    stray = [rel for rel, path in all_sources() if rel.startswith("tui/")
             and re.search(r'#include\s*"exporter/', open(path, encoding="utf-8").read())]
    assert stray == [], f"tui/ includes exporter/: {stray}"


def test_rooms_include_only_lower_rooms():
    """No include cycle between folders: the folder graph has no cycle (issue 27's house)."""
    graph = collections.defaultdict(set)
    for rel, path in all_sources():
        folder = rel.split("/")[0]
        for dep in re.findall(r'#include\s*"([a-z_]+)/', open(path, encoding="utf-8").read()):
            if dep != folder and os.path.isdir(os.path.join(SRC, dep)):
                graph[folder].add(dep)
    state = {}

    def visit(node, trail):
        if state.get(node) == "done":
            return
        assert state.get(node) != "open", f"include cycle: {' -> '.join(trail + [node])}"
        state[node] = "open"
        for dep in sorted(graph[node]):
            visit(dep, trail + [node])
        state[node] = "done"

    for folder in sorted(graph):
        visit(folder, [])
    assert "live" in graph and "exporter" in graph["cli"]  # the graph was really read


MAX_LINES = 500


def test_no_production_file_is_over_500_lines():
    """Small files (issue 27): a file over 500 lines has a seam to split along."""
    long = [(rel, n) for rel, path in all_sources()
            if (n := sum(1 for _ in open(path, encoding="utf-8"))) > MAX_LINES]
    assert long == [], f"files over {MAX_LINES} lines: {long}"


# --- The live pipeline is assembled in one place (issue 27) ---------------------------------
# live::LiveSession (src/live/live_session.*) builds the pipeline sample -> diagnose -> alerts ->
# record for serve, record, run and top: outside src/live/ no production file constructs its
# parts (a Collector, a LiveDiagnosis, an XidWatcher) nor starts or feeds the alert engine
# (LiveAlerts::start, the alert input builder). Tests and benches are exempt; references to the
# parts (`const live::Collector&`) are allowed.
PIPELINE_PARTS = ("Collector", "LiveDiagnosis", "XidWatcher")
ALERT_TICK = re.compile(r"\bLiveAlerts::start\s*\(|\bmake_tick_input\s*\(")
ALERT_TICK_HOME = {"alert_runtime/live_alerts.cpp", "alert_runtime/live_alerts.hpp",
                   "alert_runtime/tick_input.cpp", "alert_runtime/tick_input.hpp"}


def constructs(text, part):
    """Where TEXT (comments removed) constructs PART: an object of it, new, make_unique/make_shared."""
    qualified = r"(?:\w+::)*" + part
    patterns = (r"make_(?:unique|shared)\s*<\s*" + qualified + r"\s*>",
                r"\bnew\s+" + qualified + r"\b",
                r"(?<![\w:<])" + qualified + r"\s+\w+\s*[;({=]")
    return [m.group(0) for p in patterns for m in re.finditer(p, text)]


def without_comments(text):
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", text), flags=re.S)


def test_live_session_is_the_only_place_the_pipeline_is_assembled():
    found = []
    for relative, path in all_sources():
        text = without_comments(open(path, encoding="utf-8").read())
        if not relative.startswith("live/"):
            for part in PIPELINE_PARTS:
                found += [f"src/{relative}: {hit}" for hit in constructs(text, part)]
        if relative not in ALERT_TICK_HOME and not relative.startswith("live/"):
            found += [f"src/{relative}: {m.group(0)}" for m in ALERT_TICK.finditer(text)]
    assert found == [], "assemble the live pipeline with live::LiveSession (src/live/live_session.hpp): " + "; ".join(found)


def test_the_pipeline_check_sees_a_construction():
    # The check above would catch each way of building a part.
    assert constructs("live::Collector collector(api, options);", "Collector")
    assert constructs("auto c = std::make_unique<live::Collector>(api, o);", "Collector")
    assert constructs("diagnosis_ = new LiveDiagnosis(source, interval);", "LiveDiagnosis")
    assert constructs("  live::XidWatcher watcher_;", "XidWatcher")
    assert not constructs("MetricsServer(const live::Collector& collector, ServerOptions options);", "Collector")
    assert not constructs("struct CollectorOptions {", "Collector")


# --- The vendor seam (issue 27) ---------------------------------------------------------------
# Only src/nvml/ (NVIDIA's device backend) names NVML: its types and functions (nvmlDevice_t,
# nvmlDeviceGetName), its codes and macros (NVML_ERROR_*, GW_NVML_CALL), its namespace (nvml::)
# and its headers (nvml_api.hpp, nvml_library.hpp). Everything else speaks backend::DeviceBackend
# (src/backend/) and core's vendor-neutral types (core::Source read groups, core::ReadError).
# The word "NVML" in comments and user-facing strings is fine (GPUWATCH_NVML_LIBRARY,
# --nvml-library, "NVML library not found"), and so are names like nvml_library (lower case, then
# an underscore). The simulator (sim/) is outside src/ and exempt. What may still name NVML,
# exactly (each (file, match) pair):
#   - src/vendors/vendor_table.cpp: the vendor table, the one file that names each vendor's
#     backend (as nvtop's gpu_vendor registrations);
#   - output that must stay byte-identical: the /metrics HELP text of gpuwatch_gpus and two
#     sentences of `gpuwatch doctor`.
NVML_NAME = re.compile(r"\bnvml[A-Z]\w*|\bNVML_[A-Z_]+|\bnvml::|GW_NVML_CALL|nvml_api\.hpp|nvml_library\.hpp")
NVML_ALLOWED = {
    ("vendors/vendor_table.cpp", "nvml::"),
    ("exporter/prometheus_encoder.cpp", "nvmlDeviceGetCount"),  # HELP "GPUs that NVML reports (nvmlDeviceGetCount)"
    ("doctor/host_checks.cpp", "nvmlInit"),  # "nvmlInit failed: ...", "... loading and nvmlInit within N ms"
}


def test_only_the_nvml_backend_names_nvml():
    found = []
    for relative, path in all_sources():
        if relative.startswith("nvml/"):
            continue
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            for match in NVML_NAME.finditer(line):
                if (relative, match.group(0)) not in NVML_ALLOWED:
                    found.append(f"src/{relative}:{number}: {match.group(0)}")
    assert found == [], "name NVML only in src/nvml/ (go through backend::DeviceBackend): " + "; ".join(found)


def test_the_nvml_check_sees_nvml_names():
    for text in ("nvmlDevice_t dev;", "rc == NVML_ERROR_GPU_IS_LOST", "const nvml::NvmlApi& api",
                 "GW_NVML_CALL(f, nvmlEventSetFree, set)", '#include "nvml/nvml_api.hpp"',
                 '#include "nvml/nvml_library.hpp"'):
        assert NVML_NAME.search(text), text
    for text in ("GPUWATCH_NVML_LIBRARY", "std::string nvml_library;", "// NVML reports it",
                 '"NVML library not found"', "--nvml-library", "NvmlErrorCount"):
        assert not NVML_NAME.search(text), text
