"""Link a seeded, family-stratified selection of GraphNet samples into one folder for import.

A corpus is dominated by a few architectures (hundreds of BERT fine-tunes among GraphNet's
transformers samples); taking at most ``--per-family`` samples of each family (as
``passnet.dataset.families`` names it) buys the most distinct subgraphs per hour of
decomposition. Samples above ``--max-elements`` weight elements are left out (their import
needs memory, not new structure). Example::

    python scripts/corpus_subset.py /tmp/graphnet/samples /tmp/gn_pick --per-family 2 --limit 300
    passnet dataset import /tmp/gn_pick --root /tmp/gn_ds --workers 1

``--exclude FILE`` skips the samples an earlier selection took (its link names, one a line:
a ``selection.txt``), so a second import adds only new graphs to a pool.
"""

from __future__ import annotations

import argparse
import collections
import math
import random
import re
from pathlib import Path

from passnet.dataset.families import family_of

_SHAPE = re.compile(r"^\s*shape\s*=\s*\[([^\]]*)\]", re.M)


def weight_elements(folder: Path) -> int:
    """Elements of all tensors ``weight_meta.py`` declares (0 when it is missing)."""
    try:
        text = (folder / "weight_meta.py").read_text(encoding="utf-8")
    except OSError:
        return 0
    total = 0
    for dims in _SHAPE.findall(text):
        sizes = [int(d) for d in re.findall(r"-?\d+", dims)]
        total += math.prod(sizes) if sizes else 1
    return total


def link_name(root: Path, folder: Path) -> str:
    return "__".join(folder.relative_to(root).parts)


def pick(
    root: Path,
    per_family: int,
    limit: int,
    max_elements: int,
    seed: int,
    exclude: frozenset[str] = frozenset(),
) -> list[Path]:
    """Up to ``per_family`` samples of each family, round-robin over libraries, ``limit`` in
    all; samples whose link name is in ``exclude`` are not taken (nor counted)."""
    by_family: dict[tuple[str, str], list[Path]] = collections.defaultdict(list)
    for model in sorted(root.rglob("model.py")):
        folder = model.parent
        library = folder.relative_to(root).parts[0]
        by_family[(library, family_of(folder, folder.name))].append(folder)
    rng = random.Random(seed)
    per_library: dict[str, list[Path]] = collections.defaultdict(list)
    for (library, _), folders in sorted(by_family.items()):
        rng.shuffle(folders)
        kept = [f for f in folders if link_name(root, f) not in exclude
                and weight_elements(f) <= max_elements][:per_family]  # fmt: skip
        per_library[library] += kept
    for folders in per_library.values():
        rng.shuffle(folders)
    chosen: list[Path] = []
    queues = [collections.deque(v) for _, v in sorted(per_library.items())]
    while len(chosen) < limit and any(queues):
        for q in queues:
            if q and len(chosen) < limit:
                chosen.append(q.popleft())
    return chosen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="GraphNet samples/ tree")
    ap.add_argument("out", type=Path, help="folder to hold one link per chosen sample")
    ap.add_argument("--per-family", type=int, default=2)
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--max-elements", type=int, default=150_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exclude", type=Path, help="link names taken before, one a line")
    args = ap.parse_args()
    if not args.root.is_dir():
        ap.error(f"{args.root} is not a folder")
    taken: frozenset[str] = frozenset()
    if args.exclude:
        if not args.exclude.is_file():
            ap.error(f"{args.exclude}: no such file")
        taken = frozenset(args.exclude.read_text().split())
    chosen = pick(args.root, args.per_family, args.limit, args.max_elements, args.seed, taken)
    args.out.mkdir(parents=True, exist_ok=True)
    counts: collections.Counter = collections.Counter()
    for folder in chosen:
        counts[folder.relative_to(args.root).parts[0]] += 1
        link = args.out / link_name(args.root, folder)
        if not link.exists():
            link.symlink_to(folder.resolve(), target_is_directory=True)
    print(
        f"{len(chosen)} samples linked into {args.out}: "
        + ", ".join(f"{k} {v}" for k, v in counts.most_common())
    )


if __name__ == "__main__":
    main()
