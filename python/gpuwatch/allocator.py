"""PyTorch's caching allocator: reading torch.cuda.memory_stats() and the `fragmentation`
finding, a pure function over one memory_stats dict (key names as PyTorch documents them:
https://pytorch.org/docs/stable/generated/torch.cuda.memory_stats.html)."""
import sys

GIB = 1024 ** 3

# Reserved-but-unallocated memory (reserved - allocated) is "large" at this share of the
# reserved memory AND at least this many bytes (small pools are never worth a finding).
LARGE_UNALLOCATED_SHARE = 0.30
LARGE_UNALLOCATED_MIN_BYTES = 1 * GIB

ADVICE = [
    "set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (before CUDA starts) so that freed blocks can be "
    "reused for other sizes instead of fragmenting the reserved segments",
    "look at torch.cuda.memory_summary() for inactive split blocks; varying shapes (sequence lengths, "
    "last partial batch) fragment the cache most: pad or bucket them",
    "torch.cuda.empty_cache() only returns the cache to the driver; it does not cure fragmentation",
]

# The memory_stats keys read, and the names they get in step rows (what GPUWATCH_STEPS_FILE carries).
STATS_KEYS = {
    "allocated_bytes": "allocated_bytes.all.current",
    "reserved_bytes": "reserved_bytes.all.current",
    "inactive_split_bytes": "inactive_split_bytes.all.current",
    "num_alloc_retries": "num_alloc_retries",
    "num_ooms": "num_ooms",
}


def allocator_values(stats):
    """The step-row values of one memory_stats dict; a key PyTorch did not give is absent."""
    return {name: int(stats[key]) for name, key in STATS_KEYS.items() if key in stats}


def fragmentation_finding(stats):
    """The `fragmentation` finding of one torch.cuda.memory_stats() dict, or None.

    Raised when the allocator retried cudaMalloc after freeing its cache (num_alloc_retries > 0),
    ran out of memory (num_ooms > 0, critical), or holds a large reserved-but-unallocated share."""
    values = allocator_values(stats)
    allocated, reserved = values.get("allocated_bytes"), values.get("reserved_bytes")
    retries, ooms = values.get("num_alloc_retries", 0), values.get("num_ooms", 0)
    unallocated = reserved - allocated if allocated is not None and reserved is not None else None
    share = unallocated / reserved if unallocated is not None and reserved > 0 else None
    large = share is not None and share >= LARGE_UNALLOCATED_SHARE and unallocated >= LARGE_UNALLOCATED_MIN_BYTES
    if not (large or retries > 0 or ooms > 0):
        return None
    reasons = []
    if ooms > 0:
        reasons.append(f"{ooms} out-of-memory error{'s' if ooms != 1 else ''}")
    if retries > 0:
        reasons.append(f"{retries} cudaMalloc retr{'ies' if retries != 1 else 'y'} after freeing the cache")
    if large:
        reasons.append(f"{unallocated / GIB:.1f} GiB reserved but unallocated ({share * 100:.0f} % of reserved)")
    evidence = dict(values)
    if unallocated is not None:
        evidence["reserved_unallocated_bytes"] = unallocated
    return {
        "kind": "fragmentation",
        "severity": "critical" if ooms > 0 else "warning" if retries > 0 or share >= 2 * LARGE_UNALLOCATED_SHARE else "info",
        "summary": "allocator fragmentation: " + ", ".join(reasons),
        "evidence": evidence,
        "advice": list(ADVICE),
    }


def torch_memory_stats_reader():
    """A function returning torch.cuda.memory_stats() of the current device, or None when torch
    is not imported by the program, has no CUDA, or CUDA is not initialised yet (this never
    imports torch nor initialises CUDA itself; memory_stats() does not synchronise the GPU)."""
    def read():
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        cuda = getattr(torch, "cuda", None)
        try:
            if cuda is None or not cuda.is_available() or not cuda.is_initialized():
                return None
            return cuda.memory_stats()
        except Exception:  # a broken CUDA stays local: no allocator data
            return None
    return read
