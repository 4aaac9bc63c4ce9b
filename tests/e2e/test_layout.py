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
              "open_nvml.cpp", "open_nvml.hpp", "storage_options.cpp", "storage_options.hpp",
              "alert_options.cpp", "alert_options.hpp",
              "simulation_setup.cpp", "did_you_mean.cpp", "did_you_mean.hpp", "duration_option.cpp",
              "duration_option.hpp", "attribution_options.cpp", "attribution_options.hpp",
              "owner_options.cpp", "owner_options.hpp",
              "timeout_option.cpp", "timeout_option.hpp", "hung_exit.cpp", "hung_exit.hpp",
              "command_error.cpp", "command_error.hpp"}

ONLY_IN = {
    r"#include\s*<dlfcn\.h>": ("nvml", "core/optional_module.cpp"),
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
