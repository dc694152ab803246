"""The figures `benchmarks/speed/ray_nodes.py` prints (two Ray nodes against one), on known runs,
and which listening addresses it counts as loopback."""

from tests.conftest import benchmark_module


def test_speedups_are_paired_by_order_and_pooled_over_all_rounds():
    bench = benchmark_module("speed/ray_nodes")
    out = bench.summarize([40.0, 44.0], [20.0, 22.0])
    assert out["speedup_one_then_two"] == [2.0, 2.0]  # (40, 20) and (44, 22)
    assert out["speedup_two_then_one"] == [2.2]  # 44 s after the first 20 s run
    assert out["speedup_all"] == round(84 / 42, 3)
    uneven = bench.summarize([30.0, 90.0], [20.0, 30.0])
    assert uneven["speedup_all"] == 2.4  # 120 / 50, not the mean of 1.5 and 3.0
    assert bench.summarize([30.0], [])["speedup_all"] is None


def test_loopback_includes_dual_stack_sockets_bound_to_127_0_0_1():
    bench = benchmark_module("speed/ray_nodes")
    assert bench.loopback("127.0.0.1") and bench.loopback("::1")
    assert bench.loopback("::ffff:127.0.0.1")
    assert not bench.loopback("0.0.0.0") and not bench.loopback("::")
    assert not bench.loopback("192.0.2.2") and not bench.loopback("::ffff:192.0.2.2")
