"""The local executor: one driver thread per device slot, each running one measurement at a
time through ``evaluate_variant`` (which spawns the sandboxed worker process).

On a GPU machine there is one slot per visible GPU, pinned to ``cuda:i``; on CPU the default is
one slot. ``prepare_ahead`` (``--prepare-ahead N``) runs N workers per slot (None: on a GPU as
many as ``passnet eval`` would start, shared among the GPUs; 1 on CPU): a worker holds its
device's timing lock (``passnet.evaluation.device_lock``) only while it times, so one item is
timed while the next ones load, compile and check correctness, and no two timings overlap on
a device. ``--jobs N`` on CPU adds slots; their timings take turns on the host-wide CPU lock.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

from passnet.core.results import Environment, Parameters
from passnet.evaluation.cpus import TIMING_CORES, pin_thread, split_cpus
from passnet.evaluation.devices import ExecutorError, device_slots
from passnet.evaluation.evaluator import environment, evaluate_variant, host_workers
from passnet.runner.bench import Outcome, WorkItem


def default_prepare_ahead(devices: list[str]) -> int:
    """Workers per device slot when the caller names no number: on GPUs, the workers one
    suite run keeps busy per host (the host's cores less one, at most 8) shared among the GPUs,
    since preparation is host work; on CPU one, whose cores a timing shares."""
    if not devices[0].startswith("cuda"):
        return 1
    return max(1, host_workers(devices[0]) // len(devices))


class LocalPool:
    """Measure work items on this machine, one driver thread per device slot.

    With several slots, each slot's workers are pinned to their own share of the CPUs, so
    one item's compilation cannot steal the cores another item's timing runs on (host-side
    launch overhead is most of what is timed on small subgraphs).
    """

    name = "local"

    def __init__(
        self,
        device: str = "cpu",
        jobs: int | None = None,
        pin: bool = True,
        prepare_ahead: int | None = None,
    ) -> None:
        if prepare_ahead is not None and prepare_ahead < 1:
            raise ExecutorError(f"--prepare-ahead must be at least 1, got {prepare_ahead}")
        devices = device_slots(device, jobs)
        if prepare_ahead is None:
            prepare_ahead = default_prepare_ahead(devices)
        # Several workers per device: one times (under the device's timing lock,
        # passnet.evaluation.device_lock) while the others load, compile and check.
        self.prepare_ahead = prepare_ahead
        self.slots = [s for s in devices for _ in range(prepare_ahead)]
        # each slot's workers on cores of their own; on GPUs a few more cores per device are
        # kept for the one worker that times (passnet.evaluation.cpus)
        gpus = devices[0].startswith("cuda") and prepare_ahead > 1
        split = (
            split_cpus(len(self.slots), len(devices), TIMING_CORES if gpus else 0) if pin else None
        )
        self.cpus = split[1] if split else None
        self.timing_cpus = (
            {d: sorted(t) for d, t in zip(devices, split[0], strict=True)} if split and gpus else {}
        )
        self._envs = {slot: environment(slot) for slot in dict.fromkeys(self.slots)}
        names = {env.device_name for env in self._envs.values()}
        if len(names) > 1:
            raise ExecutorError(
                f"the GPUs differ ({', '.join(sorted(names))}); a run measures one device "
                "model: pick GPUs with --device cuda:N or CUDA_VISIBLE_DEVICES"
            )

    def environment(self) -> Environment:
        return self._envs[self.slots[0]]

    def run(self, items: list[WorkItem], params: Parameters) -> Iterator[Outcome]:
        todo: queue.SimpleQueue[WorkItem] = queue.SimpleQueue()
        for item in items:
            todo.put(item)
        results: queue.SimpleQueue[Outcome] = queue.SimpleQueue()
        stop = threading.Event()

        def work(index: int, slot: str) -> None:
            pin_thread(self.cpus[index] if self.cpus else None)
            while not stop.is_set():
                try:
                    item = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    result = evaluate_variant(
                        item.variant.variant, item.candidate.spec, device=slot,
                        parameters=params, timing_cpus=self.timing_cpus.get(slot),
                    )  # fmt: skip
                    results.put(Outcome(item, result, self._envs[slot]))
                except Exception as exc:  # noqa: BLE001 - a harness fault: report, keep pending
                    results.put(Outcome(item, None, None, error=f"{type(exc).__name__}: {exc}"))

        # Daemon threads: on Ctrl-C the driver stops at once; a worker process already
        # started dies with it (passnet.evaluation.lifetime) and the item stays pending.
        threads = [
            threading.Thread(target=work, args=(i, slot), daemon=True, name=f"passnet-{slot}-{i}")
            for i, slot in enumerate(self.slots[: max(1, len(items))])
        ]
        for t in threads:
            t.start()
        try:
            for _ in range(len(items)):
                while True:
                    try:
                        out = results.get(timeout=0.5)
                        break
                    except queue.Empty:
                        if not any(t.is_alive() for t in threads) and results.empty():
                            return
                yield out
        finally:
            stop.set()
