"""The fragmentation finding, a pure function over torch.cuda.memory_stats() dicts. The dicts are
shaped as PyTorch documents them (torch.cuda.memory_stats: "allocated_bytes.all.current",
"reserved_bytes.all.current", "inactive_split_bytes.all.current", "num_alloc_retries", "num_ooms", ...);
torch.cuda is absent on these machines."""
from gpuwatch.allocator import GIB, allocator_values, fragmentation_finding


def memory_stats(allocated, reserved, inactive_split=0, retries=0, ooms=0):
    """A recorded-shape memory_stats() dict (a subset of its keys, with the "all/large/small pool" forms)."""
    stats = {"num_alloc_retries": retries, "num_ooms": ooms, "num_sync_all_streams": 0,
             "num_device_alloc": 12, "num_device_free": 3, "max_split_size": -1}
    for name, current in (("allocated_bytes", allocated), ("reserved_bytes", reserved),
                          ("inactive_split_bytes", inactive_split), ("active_bytes", allocated)):
        for pool in ("all", "large_pool", "small_pool"):
            share = {"all": 1.0, "large_pool": 0.9, "small_pool": 0.1}[pool]
            for stat in ("current", "peak", "allocated", "freed"):
                stats[f"{name}.{pool}.{stat}"] = int(current * share)
    return stats


def test_a_tight_cache_is_no_finding():
    assert fragmentation_finding(memory_stats(allocated=10 * GIB, reserved=11 * GIB)) is None


def test_small_pools_are_no_finding_even_when_mostly_unallocated():
    # 75 % unallocated, but only 300 MiB: below the 1 GiB floor.
    assert fragmentation_finding(memory_stats(allocated=100 * 2**20, reserved=400 * 2**20)) is None


def test_large_reserved_but_unallocated_memory():
    f = fragmentation_finding(memory_stats(allocated=20 * GIB, reserved=32 * GIB, inactive_split=6 * GIB))
    assert f["kind"] == "fragmentation"
    assert f["severity"] == "info"  # 37 % unallocated: under 2 x 30 %
    assert f["evidence"]["reserved_unallocated_bytes"] == 12 * GIB
    assert f["evidence"]["inactive_split_bytes"] == 6 * GIB
    assert "12.0 GiB reserved but unallocated (38 % of reserved)" in f["summary"]
    assert any("expandable_segments:True" in a for a in f["advice"])


def test_mostly_unallocated_cache_is_a_warning():
    f = fragmentation_finding(memory_stats(allocated=10 * GIB, reserved=40 * GIB))
    assert f["severity"] == "warning"


def test_allocator_retries_are_a_warning_even_with_a_tight_cache():
    f = fragmentation_finding(memory_stats(allocated=70 * GIB, reserved=71 * GIB, retries=3))
    assert f["severity"] == "warning"
    assert "3 cudaMalloc retries" in f["summary"]
    assert "unallocated" not in f["summary"]


def test_out_of_memory_is_critical():
    f = fragmentation_finding(memory_stats(allocated=70 * GIB, reserved=79 * GIB, retries=1, ooms=1))
    assert f["severity"] == "critical"
    assert f["summary"].startswith("allocator fragmentation: 1 out-of-memory error, 1 cudaMalloc retry")


def test_absent_keys_stay_absent():
    # An allocator that never ran (CUDA not initialised yet) gives an empty dict.
    assert fragmentation_finding({}) is None
    assert allocator_values({}) == {}
    assert allocator_values({"num_ooms": 0}) == {"num_ooms": 0}
    # Retries alone still count; reserved without allocated gives no unallocated figure.
    f = fragmentation_finding({"reserved_bytes.all.current": 8 * GIB, "num_alloc_retries": 2})
    assert f["severity"] == "warning" and "reserved_unallocated_bytes" not in f["evidence"]


def test_step_row_values_take_the_all_pool_current_figures():
    values = allocator_values(memory_stats(allocated=5 * GIB, reserved=6 * GIB, inactive_split=GIB, retries=2))
    assert values == {"allocated_bytes": 5 * GIB, "reserved_bytes": 6 * GIB, "inactive_split_bytes": GIB,
                      "num_alloc_retries": 2, "num_ooms": 0}
