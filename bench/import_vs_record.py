#!/usr/bin/env python3
"""`gpuwatch import` of a large generated nvidia-smi --query-gpu CSV against `record`'s ingest
(issue 24's target: import at no less than half the speed of record's ingest, peak RSS under
100 MB whatever the file's size). Not a timed test: run by hand and copy the figures into
docs/performance.md:

    bench/import_vs_record.py [BUILD_DIR] [--mb 1024]

The CSV (8 GPUs, 1 s apart, with units, as `nvidia-smi --query-gpu=timestamp,index,uuid,
utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,power.draw,
clocks.sm,clocks.mem,pstate --format=csv -l 1` writes it) is generated once in BUILD_DIR and
kept. record's ingest: `sim record demo` (8 GPUs, the real sampler on the simulated driver, into
SQLite), GPU rows per second of wall time. Peak RSS: the child's ru_maxrss."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HEADER = ("timestamp, index, uuid, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
          "memory.total [MiB], temperature.gpu, power.draw [W], clocks.sm [MHz], clocks.mem [MHz], pstate\n")


def generate(path, megabytes):
    target = megabytes * 1024 * 1024
    t0 = 1_750_000_000
    rows = 0
    with open(path + ".tmp", "w") as f:
        f.write(HEADER)
        size = len(HEADER)
        second = 0
        while size < target:
            stamp = time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(t0 + second))
            lines = []
            for gpu in range(8):
                util = (second * 7 + gpu * 13) % 101
                lines.append(f"{stamp}.{gpu:03d}, {gpu}, GPU-0000000{gpu}-aaaa-bbbb-cccc-dddddddddddd, {util} %, "
                             f"{util // 2} %, {1000 + util * 700} MiB, 81559 MiB, {40 + util // 3}, "
                             f"{60 + util * 6.3:.2f} W, {1980 if util else 345} MHz, 2619 MHz, P0\n")
            chunk = "".join(lines)
            f.write(chunk)
            size += len(chunk)
            rows += 8
            second += 1
    os.replace(path + ".tmp", path)
    return rows


def timed(cmd):
    """Wall seconds and this command's own peak RSS in MB (wait4's rusage of that child)."""
    start = time.monotonic()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, (cmd, child.returncode)
    return wall, usage.ru_maxrss / 1024  # KiB -> MB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--mb", type=int, default=1024, help="size of the generated CSV (default 1024 MB)")
    ap.add_argument("--record-duration", default="2h", help="sim record's span (8 GPUs x 1 s)")
    args = ap.parse_args()
    gpuwatch = os.path.join(args.build, "gpuwatch")
    csv = os.path.join(args.build, f"bench-import-{args.mb}mb.csv")
    if not os.path.exists(csv):
        print(f"generating {csv} ...", file=sys.stderr)
        generate(csv, args.mb)
    with open(csv) as f:
        rows = sum(1 for _ in f) - 1
    with tempfile.TemporaryDirectory() as tmp:
        rec_db = os.path.join(tmp, "rec.db")
        rec_wall, rec_rss = timed([gpuwatch, "sim", "record", "demo", "--duration", args.record_duration,
                                   "--interval", "1s", "--db", rec_db])
        import sqlite3
        rec_rows = sqlite3.connect(rec_db).execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
        imp_db = os.path.join(tmp, "imp.db")
        imp_wall, imp_rss = timed([gpuwatch, "import", csv, "--db", imp_db])
        imp_rows = sqlite3.connect(imp_db).execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
    assert imp_rows == rows, (imp_rows, rows)
    rec_rate, imp_rate = rec_rows / rec_wall, imp_rows / imp_wall
    size_mb = os.path.getsize(csv) / 1e6
    print(f"record ingest (sim record demo {args.record_duration}): {rec_rows} GPU rows in {rec_wall:.2f} s = "
          f"{rec_rate:,.0f} rows/s, peak RSS {rec_rss:.1f} MB")
    print(f"import ({size_mb:.0f} MB CSV): {imp_rows} GPU rows in {imp_wall:.2f} s = {imp_rate:,.0f} rows/s "
          f"({size_mb / imp_wall:.1f} MB/s), peak RSS {imp_rss:.1f} MB")
    print(f"ratio import/record: {imp_rate / rec_rate:.2f} (target >= 0.5); peak RSS target < 100 MB")


if __name__ == "__main__":
    main()
