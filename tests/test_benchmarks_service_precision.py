"""The figures `benchmarks/speed/service_precision.py` prints, on known rounds."""

import pytest

from tests.conftest import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("speed/service_precision")


def _round(requests, seconds, p50, lone, fivexx=0):
    return {"requests": requests, "seconds": seconds, "p50_ms": p50, "lone_p50_ms": lone,
            "5xx": fivexx}


def test_requests_per_second_pool_the_rounds_and_ratios_are_against_float32(bench):
    runs = {name: [] for name in bench.SETTINGS}
    runs["fp32, 1 thread"] = [_round(100, 1.0, 40.0, 11.0), _round(300, 4.0, 50.0, 9.0)]
    runs["int8, 1 thread"] = [_round(150, 1.0, 30.0, 7.0), _round(150, 2.0, 34.0, 8.0, 1)]
    runs["int8, 2 threads"] = [_round(160, 1.0, 20.0, 6.0)]
    runs["fp32, 2 threads"] = [_round(40, 1.0, 60.0, 12.0)]
    out = bench.summarize(runs)
    # 400 requests in 5 s, not the mean of 100/s and 75/s.
    assert out["fp32, 1 thread"] == {"rps": 80.0, "p50_ms": 45.0, "lone_p50_ms": 10.0, "5xx": 0,
                                     "rps_ratio": 1.0}
    assert out["int8, 1 thread"] == {"rps": 100.0, "p50_ms": 32.0, "lone_p50_ms": 7.5, "5xx": 1,
                                     "rps_ratio": 1.25}
    assert out["int8, 2 threads"]["rps_ratio"] == 2.0
    assert out["fp32, 2 threads"]["rps_ratio"] == 0.5
