#!/usr/bin/env python3
"""Cost of gpuwatch.Monitor in a training loop (issue 14; figures in docs/performance.md):

  1. monitor.step() alone, per call (target <= 20 us): no sink, a CSV sink, disabled;
  2. the slowdown of a ~10 ms CPU training step (a real PyTorch MLP, one thread) with the monitor
     on (track + step + CSV + JSONL) against off (target < 1 %), runs interleaved off/on.

Run on the simulated driver, from the repository root:
    PYTHONPATH=python GPUWATCH_LIBRARY=build/src/capi/libgpuwatch.so.1 \\
      build/gpuwatch sim run demo -- /usr/bin/python3 bench/python_monitor_bench.py
"""
import argparse
import os
import statistics
import tempfile
import time

import gpuwatch


def step_cost_us(calls, repeats, steps_file=None, **monitor_args):
    """Best-of-REPEATS mean cost of one step() call, in microseconds (flushes included)."""
    best = float("inf")
    if steps_file:
        os.environ["GPUWATCH_STEPS_FILE"] = steps_file
    with gpuwatch.Monitor(interval=1.0, **monitor_args) as m:
        os.environ.pop("GPUWATCH_STEPS_FILE", None)
        for _ in range(repeats):
            start = time.perf_counter()
            for i in range(calls):
                m.step(i, loss=0.5)
            best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def make_training(target_ms=10.0):
    """A real PyTorch MLP training step (one CPU thread) with its batch sized so that a step takes
    about TARGET_MS of CPU time here: returns step(x) -> loss and the batches."""
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def train_step(x):
        optimizer.zero_grad()
        loss = (model(x) - x).pow(2).mean()
        loss.backward()
        optimizer.step()
        return loss.detach()

    batch = 64
    for _ in range(3):  # calibrate: scale the batch until a step is about TARGET_MS
        x = torch.randn(batch, 256)
        train_step(x)
        start = time.process_time()
        for _ in range(5):
            train_step(x)
        step_ms = (time.process_time() - start) / 5 * 1e3
        batch = max(1, int(batch * target_ms / step_ms))
    return train_step, [torch.randn(batch, 256) for _ in range(8)]


def training_seconds(train_step, batches, steps, enabled, tmp, gpus):
    """(wall, CPU) seconds per step of STEPS training steps, with the monitor on (track + step +
    CSV + JSONL; the CPU time counts every thread of the process: the sampler's, the writer's) or off."""
    with gpuwatch.Monitor(interval=1.0, gpus=gpus, enabled=enabled, csv=os.path.join(tmp, "s.csv"),
                          jsonl=os.path.join(tmp, "s.jsonl")) as m:
        wall, cpu = time.perf_counter(), time.process_time()
        for step, x in enumerate(m.track(batches[i % len(batches)] for i in range(steps))):
            m.step(step, loss=train_step(x))
        m.flush()
        return (time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--steps", type=int, default=300, help="training steps per run (default 300)")
    p.add_argument("--pairs", type=int, default=5, help="off/on run pairs (default 5)")
    p.add_argument("--gpus", default="0", help='the training runs\' GPU selection (default "0": one GPU, as one rank)')
    p.add_argument("--skip-step-cost", action="store_true")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_step_cost:
            print(f"step() cost, best of 5 x {args.calls} calls:")
            for label, kw in (("1 GPU, no sink", {"gpus": "0"}),
                              ("1 GPU, CSV sink", {"gpus": "0", "csv": os.path.join(tmp, "a.csv")}),
                              ("1 GPU, CSV + JSONL + steps file", {"gpus": "0", "csv": os.path.join(tmp, "b.csv"),
                                                                   "jsonl": os.path.join(tmp, "b.jsonl"),
                                                                   "steps_file": os.path.join(tmp, "steps.jsonl")}),
                              ("8 GPUs, CSV sink", {"gpus": "all", "csv": os.path.join(tmp, "c.csv")}),
                              ("disabled", {"enabled": False})):
                print(f"  {label:34} {step_cost_us(args.calls, 5, **kw):7.2f} us")
        try:
            import torch
        except ImportError:
            print("training-step slowdown: skipped (no torch)")
            return
        torch.set_num_threads(1)
        train_step, batches = make_training()
        training_seconds(train_step, batches, 20, False, tmp, args.gpus)  # warm-up
        off, on = [], []
        for _ in range(args.pairs):
            off.append(training_seconds(train_step, batches, args.steps, False, tmp, args.gpus))
            on.append(training_seconds(train_step, batches, args.steps, True, tmp, args.gpus))
        print(f"training step (batch {len(batches[0])}, gpus={args.gpus!r}), median of {args.pairs} off/on runs x "
              f"{args.steps} steps:")
        for i, label in ((1, "CPU time"), (0, "wall time")):
            a, b = statistics.median(r[i] for r in off) * 1e3, statistics.median(r[i] for r in on) * 1e3
            spread = (max(r[i] for r in off) - min(r[i] for r in off)) / statistics.median(r[i] for r in off) * 100
            print(f"  {label:9} off {a:7.2f} ms, on {b:7.2f} ms, slowdown {(b / a - 1) * 100:+6.2f} %  "
                  f"(spread of the off runs {spread:.1f} %)")


if __name__ == "__main__":
    main()
