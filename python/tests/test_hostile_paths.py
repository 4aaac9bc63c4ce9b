"""Issue 31: the Monitor never blocks or raises into the training loop, whatever the environment
names. Each case runs in a child Python with a timeout, so a regression (a hang on a FIFO) fails
instead of hanging the suite: a FIFO as GPUWATCH_STEPS_FILE (with and without a reader), a
missing folder, a symlink (to a file that must stay untouched), and a FIFO as GPUWATCH_LIBRARY."""
import os
import subprocess
import sys
import textwrap

from conftest import child_env

SNIPPET = textwrap.dedent("""
    import warnings
    warnings.simplefilter("always")
    import gpuwatch
    m = gpuwatch.Monitor(interval=0.1, start_timeout=2)
    for step in range(3):
        m.step(step, loss=0.5)
    m.close()
    print("training went on")
""")


def run_monitor(timeout=20, **env):
    """The child's (returncode, stdout, stderr); GPUWATCH_LIBRARY defaults to a missing file (no
    GPU sampling: the step sinks are what is tested)."""
    env.setdefault("GPUWATCH_LIBRARY", "/nonexistent/libgpuwatch.so.1")
    done = subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, timeout=timeout,
                          env=child_env(**env))
    return done.returncode, done.stdout, done.stderr


def warnings_naming(stderr, text):
    return [line for line in stderr.splitlines() if "Warning" in line and text in line]


def test_a_fifo_steps_file_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "steps.fifo"
    os.mkfifo(fifo)
    rc, out, err = run_monitor(GPUWATCH_STEPS_FILE=fifo)  # no reader: O_NONBLOCK fails at once
    assert rc == 0 and "training went on" in out, err
    assert len(warnings_naming(err, str(fifo))) == 1, err
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader: the open succeeds, the type check refuses
    try:
        rc, out, err = run_monitor(GPUWATCH_STEPS_FILE=fifo)
        assert rc == 0 and "training went on" in out, err
        assert len(warnings_naming(err, "not a regular file")) == 1, err
        assert os.read(reader, 4096) == b""  # nothing was written into it
    finally:
        os.close(reader)


def test_a_missing_steps_folder_is_created(tmp_path):
    steps = tmp_path / "missing" / "deeper" / "steps.jsonl"
    rc, out, err = run_monitor(GPUWATCH_STEPS_FILE=steps)
    assert rc == 0 and "training went on" in out, err
    assert len(steps.read_text().splitlines()) == 3
    assert not warnings_naming(err, str(steps)), err


def test_a_steps_folder_that_cannot_be_made_turns_that_sink_off_with_one_warning(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    steps = blocker / "steps.jsonl"  # its folder is a file: cannot be made
    rc, out, err = run_monitor(GPUWATCH_STEPS_FILE=steps)
    assert rc == 0 and "training went on" in out, err
    assert len(warnings_naming(err, str(steps))) == 1, err


def test_a_symlinked_steps_file_is_not_followed(tmp_path):
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0:root:/root:/bin/bash\n")
    link = tmp_path / "steps.jsonl"
    os.symlink(victim, link)
    rc, out, err = run_monitor(GPUWATCH_STEPS_FILE=link)
    assert rc == 0 and "training went on" in out, err
    assert victim.read_text() == "root:x:0:0:root:/root:/bin/bash\n"
    assert len(warnings_naming(err, str(link))) == 1, err


def test_a_fifo_library_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "libgpuwatch.so.1"
    os.mkfifo(fifo)
    steps = tmp_path / "steps.jsonl"
    rc, out, err = run_monitor(GPUWATCH_LIBRARY=fifo, GPUWATCH_STEPS_FILE=steps)
    assert rc == 0 and "training went on" in out, err
    assert len(warnings_naming(err, "not a regular file")) == 1, err
    assert len(steps.read_text().splitlines()) == 3  # step timing went on without GPU sampling
