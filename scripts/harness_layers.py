"""What each per-call layer of the timing harness costs one eager call, in process: a graph's
module timed by ``passnet.evaluation.timing.measure`` bare, with each layer alone and with all
of them (fresh bank values written before every call, outputs held to the end of each block,
the parent's timing witness on a real socket pair), the configurations interleaved over
``--reps`` rounds; per configuration the median (and range) of the per-round medians.

    python scripts/harness_layers.py \\
        examples/suite/fusible_add_layer_norm_1f059508/graphs/float32/6_roberta_b2_0924141a
"""

from __future__ import annotations

import argparse
import statistics

import torch

from passnet.evaluation import witness
from passnet.evaluation.timing import Side, measure
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.integrity import timed_values
from passnet.integrity.checks import TimedSampler

CONFIGS = {  # feed, hold, witness
    "bare": (False, False, False),
    "feed": (True, False, False),
    "hold": (False, True, False),
    "witness": (False, False, True),
    "all": (True, True, True),
}


def timed(module: torch.nn.Module, inputs: list, bank: timed_values.ValueBank,
          device: torch.device, layers: tuple[bool, bool, bool]) -> float:  # fmt: skip
    """One measurement of the module under the given layers: its median wall time (us)."""
    feed, hold, seen = layers
    held = timed_values.Held(25) if hold else None
    side = Side("reference", TimedSampler(module.forward, 125), inputs,
                timed_values.Feed(bank, inputs) if feed else None,
                held.keep if held else None, held.settle if held else None)  # fmt: skip
    log = w = None
    if seen:
        parent, child = witness.pair()
        log, w = witness.Log(parent), witness.Witness(child.detach())
    with torch.no_grad():
        out = measure([side], device, warmup=25, trials=100, rounds=4, max_reruns=0, witness=w)
    if w is not None and log is not None:
        w._sock.close()
        log.close()
    return out["reference"].wall.median_us


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph", help="a sample folder (model.py, meta)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    torch.set_num_threads(1)
    device = torch.device(args.device)
    sample = load_sample(args.graph)
    module = load_module(sample, device)
    inputs = materialize(sample, device=str(device), seed=0)
    bank = timed_values.ValueBank(lambda s: materialize(sample, device=str(device), seed=s),
                                  module.forward, 4)  # fmt: skip
    medians: dict[str, list[float]] = {k: [] for k in CONFIGS}
    for _ in range(args.reps):
        for name, layers in CONFIGS.items():
            medians[name].append(timed(module, inputs, bank, device, layers))
    bare = statistics.median(medians["bare"])
    for name, values in medians.items():
        m = statistics.median(values)
        print(
            f"{name:8s} {m:8.2f} us ({m - bare:+.2f}; rounds {min(values):.2f}-{max(values):.2f})"
        )


if __name__ == "__main__":
    main()
