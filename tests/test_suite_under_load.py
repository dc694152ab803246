"""The script that runs the suite with the cores kept busy: what it reports and that its busy
processes never outlive it."""

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "speed" / "suite_under_load.py"
spec = importlib.util.spec_from_file_location("suite_under_load", SCRIPT)
under_load = importlib.util.module_from_spec(spec)
spec.loader.exec_module(under_load)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited; only its entry is left until it is reaped.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def _wait_gone(pid: int, deadline_s: float = 60) -> bool:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def two_files(tmp_path):
    good = tmp_path / "test_good.py"
    good.write_text("def test_one():\n    assert 1\n\ndef test_two():\n    assert 2\n")
    bad = tmp_path / "test_bad.py"
    bad.write_text("def test_one():\n    assert 1\n\ndef test_fails():\n    assert 0\n")
    return good, bad


def test_every_run_is_reported_and_all_passing_exits_0(two_files, capsys):
    good, _ = two_files
    rc = under_load.main(["--runs", "2", "--load", "1", "--", "-q", "-p", "no:cacheprovider",
                          str(good)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "run 1/2: passed, 2 passed" in out and "run 2/2: passed, 2 passed" in out
    assert f"2 of 2 runs passed with 1 busy processes beside them on {os.cpu_count()} cores" in out


def test_a_failing_run_is_counted_shown_and_exits_1(two_files, capsys):
    _, bad = two_files
    rc = under_load.main(["--runs", "1", "--load", "0", "--", "-q", "-p", "no:cacheprovider",
                          str(bad)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "run 1/1: FAILED (exit 1), 1 failed, 1 passed" in out
    assert "test_fails" in out  # pytest's own report of the failure is shown
    assert "0 of 1 runs passed" in out


def test_the_busy_processes_stop_with_the_run(two_files):
    procs = under_load.start_load(2)
    pids = [p.pid for p in procs]
    assert all(_alive(pid) for pid in pids)
    under_load.stop_load(procs)
    assert all(_wait_gone(pid) for pid in pids)


def test_the_busy_processes_stop_on_sigterm_whatever_handler_or_mask_the_parent_has():
    """A test process may hold a SIGTERM handler or mask that a library left; its forked
    spinners must still stop on SIGTERM alone."""
    old = signal.signal(signal.SIGTERM, lambda *_: None)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        procs = under_load.start_load(2)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        signal.signal(signal.SIGTERM, old)
    try:
        time.sleep(0.2)  # the spinners are past their start
        for p in procs:
            p.terminate()
        assert all(_wait_gone(p.pid, 10) for p in procs)
    finally:
        for p in procs:
            p.kill()
            p.join()


def test_a_killed_script_leaves_no_busy_loop(tmp_path):
    # The parent is killed outright (no cleanup runs): each spinner must notice and exit.
    pidfile = tmp_path / "pids"
    code = (f"import importlib.util, pathlib, time\n"
            f"spec = importlib.util.spec_from_file_location('m', {str(SCRIPT)!r})\n"
            f"m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            f"procs = m.start_load(1)\n"
            f"pathlib.Path({str(pidfile)!r}).write_text(str(procs[0].pid))\n"
            f"time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        end = time.monotonic() + 60
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < end:
            time.sleep(0.05)
        spinner = int(pidfile.read_text())
        assert _alive(spinner)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert _wait_gone(spinner), "the busy process outlived its killed parent"


def test_bad_counts_are_refused():
    with pytest.raises(SystemExit):
        under_load.main(["--runs", "0"])
    with pytest.raises(SystemExit):
        under_load.main(["--load", "-1"])
