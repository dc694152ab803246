"""Run the test suite several times in a row with the machine's cores kept busy.

A test that passes on an idle machine and fails on a loaded one depends on timing. This script
keeps ``--load`` processes spinning (one per core by default) and runs the suite ``--runs`` times,
printing each run's outcome, its duration and the load average. Nothing it prints is a benchmark
figure: a run under load is slower by design.

    python benchmarks/speed/suite_under_load.py                    # 3 runs, one spinner per core
    python benchmarks/speed/suite_under_load.py --load 0 -- -x tests/service/test_service_pool.py
                                                             # beside other work (a training run)

The spinners stop when the script ends, however it ends: each one exits as soon as its parent is
gone, so an interrupted run leaves no busy loop behind.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import signal
import subprocess
import sys
import time

SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed).*?)\s*=*$", re.M)


def spin(parent: int) -> None:
    """Keep one core busy until the parent process is gone, or SIGTERM."""
    # A forked child inherits its parent's SIGTERM handler and signal mask: a handler or a mask
    # that a library left in the parent (a test process runs many) would keep it spinning.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    while os.getppid() == parent:
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            pass


def start_load(n: int) -> list[mp.Process]:
    procs = [mp.Process(target=spin, args=(os.getpid(),), daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    return procs


def stop_load(procs: list[mp.Process]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():  # SIGTERM was not enough: the spinner must not outlive the run
            p.kill()
            p.join(timeout=10)


def run_suite(pytest_args: list[str]) -> tuple[int, str, float]:
    """One pytest run in a child process: its exit status, summary line and seconds."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], env=env,
                          capture_output=True, text=True)
    seconds = time.monotonic() - start
    found = SUMMARY.findall(proc.stdout)
    summary = found[-1][0] if found else (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    if proc.returncode != 0:
        # The failures are what a reader needs: keep the end of pytest's report.
        sys.stdout.write(proc.stdout[-6000:] + proc.stderr[-2000:])
    return proc.returncode, summary, seconds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Arguments after -- go to pytest (default: -q -rs tests).")
    p.add_argument("--runs", type=int, default=3, help="Suite runs in a row (default 3).")
    p.add_argument("--load", type=int, default=os.cpu_count() or 1,
                   help="Busy processes beside the suite (default: one per core; 0 when other "
                        "work already loads the machine).")
    args, rest = p.parse_known_args(argv)
    if args.runs < 1 or args.load < 0:
        p.error("--runs must be at least 1 and --load at least 0")
    pytest_args = [a for a in rest if a != "--"] or ["-q", "-rs", "tests"]
    procs = start_load(args.load)
    failed = 0
    try:
        for i in range(1, args.runs + 1):
            rc, summary, seconds = run_suite(pytest_args)
            failed += rc != 0
            load1 = os.getloadavg()[0]
            print(f"run {i}/{args.runs}: {'passed' if rc == 0 else f'FAILED (exit {rc})'}, "
                  f"{summary}, {seconds:.0f} s, load average {load1:.1f}", flush=True)
    finally:
        stop_load(procs)
    print(f"{args.runs - failed} of {args.runs} runs passed with {args.load} busy processes beside "
          f"them on {os.cpu_count()} cores")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
