"""The side-stream check's decision (passnet/integrity/device_work.py), on CPU: the waits are
real (a spin and a sleep), the device is not needed to tell one strike from two."""

from __future__ import annotations

import time

import pytest
import torch

from passnet.integrity.device_work import BUSY_S, DeviceWork, timed_wait


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_timed_wait_tells_a_spinning_wait_from_a_descheduled_one() -> None:
    # spinning: the thread ran for the wait (best of 3: on a loaded 2-core CI host the spinning
    # thread itself was once descheduled for more than half of a 5 ms spin)
    spins = [timed_wait(lambda: spin(0.005)) for _ in range(3)]
    assert all(wall >= 0.005 for wall, _ in spins)
    assert max(ran / wall for wall, ran in spins) >= 0.5
    wall, ran = timed_wait(lambda: time.sleep(0.005))
    assert wall >= 0.005 and ran < 0.5 * wall  # asleep (as when descheduled): it did not


def test_one_slow_wait_warns_and_a_second_rejects() -> None:
    work = DeviceWork()
    assert work.observe(0.0002, 0.0002) is None  # fast: nothing
    check, detail, fatal = work.observe(0.008, 0.0001)
    assert (check, fatal) == ("side-stream-once", False)
    assert "8.0 ms" in detail and "ran 0.1 ms" in detail
    assert work.observe(BUSY_S / 2, 0.0) is None
    check, detail, fatal = work.observe(0.0031, 0.003)
    assert (check, fatal) == ("side-stream", True)
    assert (
        "2 of 4 checked calls" in detail
        and "call 2: 8.0 ms" in detail
        and "call 4: 3.1 ms" in detail
    )
    assert work.observe(0.005, 0.005) is None  # rejected once: one finding says it


def test_runtime_reports_the_strikes_as_findings() -> None:
    from passnet.integrity.runtime import Runtime

    rt = Runtime(torch.device("cpu"))
    try:
        for wall in (0.004, 0.0001, 0.006):
            found = rt.device_work.observe(wall, wall)
            if found:
                rt.add(*found)
        assert [(f.check, f.fatal) for f in rt.findings] == [
            ("side-stream-once", False),
            ("side-stream", True),
        ]
        assert [f.check for f in rt.fatal()] == ["side-stream"]
    finally:
        rt.close()


@pytest.mark.parametrize("strikes", [1, 3])
def test_the_number_of_strikes_is_a_parameter(strikes: int) -> None:
    work = DeviceWork(strikes=strikes)
    found = [work.observe(0.01, 0.01) for _ in range(strikes)]
    assert found[-1] is not None and found[-1][0] == "side-stream" and found[-1][2]
    assert all(f is None or not f[2] for f in found[:-1])
