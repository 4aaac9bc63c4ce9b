"""The .deb (issue 15): `cmake --build BUILD --target deb` builds it with CPack; its contents are
checked with dpkg-deb, and the unpacked tree is run: the packaged binary finds the packaged
simulated driver (../lib/gpuwatch/sim-driver), the man page and unit are in place."""
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

BIN = pathlib.Path(os.environ["GPUWATCH_BIN"])
BUILD = BIN.parent


@pytest.fixture(scope="module")
def deb():
    r = subprocess.run(["cmake", "--build", str(BUILD), "--target", "deb"], capture_output=True, text=True,
                       timeout=280)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    debs = sorted(BUILD.glob("gpuwatch_*.deb"), key=lambda p: p.stat().st_mtime)
    assert debs, "cpack wrote no gpuwatch_*.deb"
    return debs[-1]


def test_package_fields_and_dependencies(deb):
    info = subprocess.run(["dpkg-deb", "--field", str(deb)], capture_output=True, text=True, timeout=30).stdout
    fields = dict(line.split(": ", 1) for line in info.splitlines() if ": " in line and not line.startswith(" "))
    assert fields["Package"] == "gpuwatch"
    assert fields["Architecture"] == "amd64"
    depends = fields.get("Depends", "")
    for library in ("libc6", "libgrpc++1.51", "libprotobuf32", "libsqlite3-0"):  # from dpkg-shlibdeps
        assert library in depends, depends


def test_contents(deb):
    listing = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, timeout=30).stdout
    paths = {line.split()[-1].lstrip(".") for line in listing.splitlines()}
    for path in ("/usr/bin/gpuwatch", "/usr/lib/gpuwatch/sim-driver/libnvidia-ml.so.1",
                 "/usr/lib/systemd/system/gpuwatch.service", "/usr/share/man/man1/gpuwatch.1.gz",
                 "/usr/share/bash-completion/completions/gpuwatch", "/usr/share/zsh/vendor-completions/_gpuwatch",
                 "/usr/share/gpuwatch/slurm/gpuwatch-prolog.sh", "/usr/share/doc/gpuwatch/attribution.md",
                 "/usr/lib/gpuwatch/modules/gpuwatch-kubelet.so", "/usr/lib/gpuwatch/modules/gpuwatch-curl.so",
                 "/usr/lib/gpuwatch/modules/gpuwatch-remote-http.so"):
        assert path in paths, f"{path} not in the package"


def test_unpacked_tree_runs_on_its_own_simulated_driver(deb):
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["dpkg-deb", "-x", str(deb), root], check=True, timeout=60)
        env = {k: v for k, v in os.environ.items() if k not in ("GPUWATCH_SIM_DRIVER_DIR",)}
        r = subprocess.run([os.path.join(root, "usr/bin/gpuwatch"), "--simulate", "idle", "query",
                            "--query-gpu=name", "--format=csv,noheader"], env=env, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip()
        man = subprocess.run(["zcat", os.path.join(root, "usr/share/man/man1/gpuwatch.1.gz")], capture_output=True,
                             text=True, timeout=30).stdout
        assert man.startswith(".TH GPUWATCH 1") and "\\-\\-attribution\\-labels" in man
        completion = pathlib.Path(root, "usr/share/bash-completion/completions/gpuwatch").read_text()
        assert "complete -F _gpuwatch gpuwatch" in completion and "--hpc-job-mapping-dir" in completion
        unit = pathlib.Path(root, "usr/lib/systemd/system/gpuwatch.service").read_text()
        assert "ExecStart=/usr/bin/gpuwatch serve" in unit


def test_dpkg_installs_into_a_scratch_root_and_removes_everything(deb):
    """`dpkg --root` installs the package into an empty root (its own dpkg database; the libraries
    it depends on are the host's, hence --force-depends), the installed binary runs, and `dpkg -r`
    takes every file away again. The package has no maintainer scripts, so nothing runs chrooted."""
    with tempfile.TemporaryDirectory() as root:
        admin = pathlib.Path(root, "var/lib/dpkg")
        for sub in ("updates", "info"):
            (admin / sub).mkdir(parents=True)
        (admin / "status").touch()

        def dpkg(*args):
            r = subprocess.run(["dpkg", f"--root={root}", "--force-not-root", "--force-depends", *args],
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stdout + r.stderr
            return r.stdout

        dpkg("--install", str(deb))
        assert "Status: install ok installed" in dpkg("--status", "gpuwatch")
        installed = pathlib.Path(root)
        version = subprocess.run([str(installed / "usr/bin/gpuwatch"), "--version"], capture_output=True, text=True,
                                 timeout=30)
        assert version.returncode == 0 and version.stdout.startswith("gpuwatch "), version.stdout + version.stderr
        files = {"usr/lib/systemd/system/gpuwatch.service", "usr/share/man/man1/gpuwatch.1.gz",
                 "usr/share/bash-completion/completions/gpuwatch", "usr/share/zsh/vendor-completions/_gpuwatch",
                 "usr/lib/gpuwatch/sim-driver/libnvidia-ml.so.1", "usr/lib/gpuwatch/modules/gpuwatch-kubelet.so",
                 "usr/lib/gpuwatch/modules/gpuwatch-curl.so", "usr/lib/gpuwatch/modules/gpuwatch-remote-http.so"}
        for f in files:
            assert (installed / f).is_file(), f"{f} not installed"
        # The optional modules load (their libraries resolve) and carry this build's version.
        for module in ("gpuwatch-kubelet.so", "gpuwatch-curl.so", "gpuwatch-remote-http.so"):
            path = installed / "usr/lib/gpuwatch/modules" / module
            check = subprocess.run([sys.executable, "-c", "import ctypes, sys; m = ctypes.CDLL(sys.argv[1]); "
                                    "m.gpuwatch_module_version.restype = ctypes.c_char_p; "
                                    "print(m.gpuwatch_module_version().decode())", str(path)],
                                   capture_output=True, text=True, timeout=30)
            assert check.returncode == 0 and version.stdout.split()[1] == check.stdout.strip(), check.stderr
        listed = dpkg("--listfiles", "gpuwatch")
        assert all("/" + f in listed.split() for f in files)

        dpkg("--remove", "gpuwatch")
        gone = subprocess.run(["dpkg", f"--root={root}", "--status", "gpuwatch"], capture_output=True, text=True,
                              timeout=30)
        assert gone.returncode == 1 and "not installed" in gone.stderr, gone.stdout + gone.stderr
        left = [p for p in (installed / "usr").rglob("*") if p.is_file()] if (installed / "usr").exists() else []
        assert left == [], left
