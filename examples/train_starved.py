#!/usr/bin/env python3
"""A small real PyTorch training loop (CPU) whose DataLoader workers sleep, so the loop is
starved by its input pipeline, monitored with gpuwatch.Monitor:

    gpuwatch sim run dataloader_starvation -- python3 examples/train_starved.py --csv steps.csv
    gpuwatch run -- python3 examples/train_starved.py        # the job's summary names the starvation

Each batch costs a worker --sleep-ms; each step computes for at least --compute-ms (a tiny MLP,
padded with a sleep standing in for a bigger model). With --workers W, a batch arrives every
sleep/W ms, so the loop waits about (sleep/W - compute) / (sleep/W) of its time for data.
Writes one CSV row per step (loss, data-wait time, GPU columns) and prints the findings.
GPUWATCH_DISABLE=1 (or --disable) turns the monitor off; the training runs the same."""
import argparse
import json
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import gpuwatch


class SlowBatches(Dataset):
    """Synthetic regression batches (y = x . w + noise); each one takes SLEEP_S to "load"."""

    def __init__(self, batches, batch_size, features, sleep_s):
        self.batches, self.batch_size, self.features, self.sleep_s = batches, batch_size, features, sleep_s
        self.weights = torch.linspace(-1, 1, features)

    def __len__(self):
        return self.batches

    def __getitem__(self, index):
        time.sleep(self.sleep_s)  # slow storage / decoding / augmentation
        generator = torch.Generator().manual_seed(index)
        x = torch.randn(self.batch_size, self.features, generator=generator)
        y = x @ self.weights + 0.1 * torch.randn(self.batch_size, generator=generator)
        return x, y.unsqueeze(1)


def expected_wait_share(sleep_ms, workers, compute_ms):
    """The data-wait share the flags inject (steady state, overheads aside)."""
    per_batch = sleep_ms / max(1, workers)
    return max(0.0, per_batch - compute_ms) / max(per_batch, compute_ms)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200, help="training steps (default 200)")
    p.add_argument("--sleep-ms", type=float, default=40.0, help="time a worker takes per batch (default 40)")
    p.add_argument("--workers", type=int, default=1, help="DataLoader num_workers (default 1)")
    p.add_argument("--compute-ms", type=float, default=10.0, help="minimum compute time per step (default 10)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--csv", help="write one row per step here")
    p.add_argument("--interval", type=float, default=0.5, help="GPU sampling interval, seconds (default 0.5)")
    p.add_argument("--gpus", default="job", help='"job" (default), "all" or "0,2"')
    p.add_argument("--disable", action="store_true", help="run with the monitor off")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (for tests)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = SlowBatches(args.steps, args.batch_size, 32, args.sleep_ms / 1000)
    loader = DataLoader(data, batch_size=None, shuffle=False, num_workers=args.workers)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.MSELoss()
    compute_s = args.compute_ms / 1000
    # The script's own stopwatch, over the steps after the first: its compute time and the wall time.
    stopwatch_compute_s, after_first_step = 0.0, None

    with gpuwatch.Monitor(interval=args.interval, gpus=args.gpus, enabled=not args.disable, csv=args.csv) as monitor:
        for step, (x, y) in enumerate(monitor.track(loader)):
            started = time.perf_counter()
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            left = compute_s - (time.perf_counter() - started)
            if left > 0:
                time.sleep(left)  # the rest of a bigger model's step
            if step > 0:
                stopwatch_compute_s += time.perf_counter() - started
            monitor.step(step, loss=loss.detach(), samples=args.batch_size)  # samples: J/sample in `gpuwatch run`
            if step == 0:
                after_first_step = time.perf_counter()
        stopwatch_wall_s = time.perf_counter() - after_first_step
        findings = monitor.findings()
        summary = {
            "steps": args.steps,
            "final_loss": float(loss.item()),
            "enabled": monitor.enabled,
            "job_id": monitor.job_id,
            "expected_wait_share": expected_wait_share(args.sleep_ms, args.workers, args.compute_ms),
            # What the script's own stopwatch says: 1 - its compute time / the wall time (on a loaded
            # machine the workers and the compute both run slower than the flags say).
            "stopwatch_wait_share": 1 - stopwatch_compute_s / stopwatch_wall_s if stopwatch_wall_s > 0 else None,
            "measured_wait_share": monitor.data_wait_share,
            "findings": findings,
            "gpu_error": monitor.error,
        }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"trained {args.steps} steps, final loss {summary['final_loss']:.4f}")
    if not monitor.enabled:
        print("gpuwatch monitor disabled")
        return 0
    print(f"data-wait share: measured {summary['measured_wait_share'] or 0:.0%}, "
          f"injected ~{summary['expected_wait_share']:.0%} (stopwatch: {summary['stopwatch_wait_share'] or 0:.0%})")
    for f in findings:
        print(f"{f['severity'].upper():8} {f['summary']}")
        for advice in f["advice"]:
            print(f"         try: {advice}")
    if not findings:
        print("no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
