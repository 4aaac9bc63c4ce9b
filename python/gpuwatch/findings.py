"""The `input_starved` finding from the measured data-wait share (pure). Its thresholds and
advice are the diagnose engine's (src/diagnose/thresholds.hpp, kinds.cpp), read from libgpuwatch."""


def input_starved_finding(data_wait_s, compute_s, steps, info_share, warn_share, advice):
    """None below INFO_SHARE; else an info (warning from WARN_SHARE) finding with the share."""
    total = data_wait_s + compute_s
    if steps <= 0 or total <= 0:
        return None
    share = data_wait_s / total
    if share < info_share:
        return None
    return {
        "kind": "input_starved",
        "severity": "warning" if share >= warn_share else "info",
        "summary": f"input-starved: the loop waited for data {share * 100:.0f} % of the time "
                   f"({data_wait_s / steps * 1000:.1f} ms of {total / steps * 1000:.1f} ms per step, {steps} steps)",
        "evidence": {"data_wait_share": share, "data_wait_s": data_wait_s, "compute_s": compute_s, "steps": steps},
        "advice": list(advice),
    }
