"""Where step rows go: a CSV file, a JSON-lines file, and the GPUWATCH_STEPS_FILE contract
with `gpuwatch run`. A sink gets batches of (row, snapshot) pairs: the step's own values and
the GPU sample current at that step (a dict shared by every step of one sample, so its part
of a line is formatted once per sample, not once per step). Absent values are left out
(JSON) or empty cells (CSV), never 0."""
import json
import os
import stat

STEP_COLUMNS = ["step", "time", "data_wait_s", "compute_s", "loss"]
STEPS_FILE_KEYS = STEP_COLUMNS + ["allocated_bytes", "reserved_bytes", "num_alloc_retries", "num_ooms", "samples"]


_dumps = json.JSONEncoder(separators=(",", ":")).encode


def open_regular_file(path, truncate=False, follow_symlinks=True):
    """A file descriptor of PATH opened for writing (appending unless TRUNCATE) that never blocks
    the training loop (issue 31): opened O_NONBLOCK (a FIFO with no reader fails at once instead
    of hanging), then refused unless it is a regular file; with FOLLOW_SYMLINKS False, a symlink
    at PATH is refused (O_NOFOLLOW). A missing folder is created (0700). OSError otherwise."""
    path = str(path)
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC | (0 if truncate else os.O_APPEND)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        if truncate:
            os.ftruncate(fd, 0)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class JsonlSink:
    """Every key of every row and its snapshot, one JSON object per line."""

    def __init__(self, path):
        self.path = str(path)
        self._file = os.fdopen(open_regular_file(self.path), "a", encoding="utf-8")
        self._snap, self._snap_text = None, ""

    def _snapshot_part(self, snap):
        if snap is not self._snap:
            self._snap, self._snap_text = snap, _dumps(snap)[1:-1] if snap else ""
        return self._snap_text

    def write(self, pairs):
        lines = []
        for row, snap in pairs:
            line = _dumps(row)
            part = self._snapshot_part(snap)
            lines.append(line[:-1] + "," + part + "}" if part else line)
        self._file.write("\n".join(lines) + "\n")
        self._file.flush()

    def close(self):
        self._file.close()


class StepsFileSink(JsonlSink):
    """GPUWATCH_STEPS_FILE: {"step", "time", "data_wait_s", "compute_s", "loss" (null when not given),
    and the allocator's "allocated_bytes", "reserved_bytes", "num_alloc_retries", "num_ooms" on the steps
    where it was read} per line. No GPU columns: `gpuwatch run` samples the GPUs itself."""

    def __init__(self, path):  # pylint: disable=super-init-not-called
        self.path = str(path)
        # One O_APPEND write per flush: the ranks of a torchrun job share the file without mixing lines.
        # The path comes from the environment: a FIFO, a device or a symlink (to /etc/passwd, run as
        # root) is refused, never waited on nor followed (issue 31).
        self._fd = open_regular_file(self.path, follow_symlinks=False)

    def write(self, pairs):
        data = ("\n".join(_dumps({k: row[k] for k in STEPS_FILE_KEYS if k in row}) for row, _ in pairs) + "\n").encode()
        while data:
            data = data[os.write(self._fd, data):]

    def close(self):
        os.close(self._fd)


def _csv_cell(value):
    """One CSV cell: None is an empty cell; text is quoted when it needs to be."""
    if value is None:
        return ""
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\r\n') else value
    return repr(value) if isinstance(value, float) else str(value)


class CsvSink:
    """The columns are fixed by the first batch written: the step columns, the other step keys in
    the order first seen (extra scalars, allocator values), then the GPU columns of the snapshot.
    Keys that appear only later are left out (the JSONL sink keeps everything). The snapshot's
    cells are formatted once per sample."""

    def __init__(self, path):
        self.path = str(path)
        self._file = os.fdopen(open_regular_file(self.path, truncate=True), "w", newline="", encoding="utf-8")
        self._row_columns = self._snap_columns = None
        self._snap, self._snap_text = None, ""

    def _start(self, pairs):
        self._row_columns, self._snap_columns = list(STEP_COLUMNS), []
        for row, snap in pairs:
            self._row_columns += [k for k in row if k not in self._row_columns]
            self._snap_columns += [k for k in snap if k not in self._snap_columns]
        self._file.write(",".join(_csv_cell(c) for c in self._row_columns + self._snap_columns) + "\r\n")

    def write(self, pairs):
        if self._row_columns is None:
            self._start(pairs)
        columns = self._row_columns
        lines = []
        for row, snap in pairs:
            if snap is not self._snap:
                self._snap = snap
                self._snap_text = "".join("," + _csv_cell(snap.get(k)) for k in self._snap_columns)
            lines.append(",".join([_csv_cell(row.get(k)) for k in columns]) + self._snap_text + "\r\n")
        self._file.write("".join(lines))
        self._file.flush()

    def close(self):
        self._file.close()
