"""Make a bench run's synthesised passes the pass library (examples/synth_passes).

``passnet bench -c synth:correct`` keeps each task's synthesis in its cache
(``<store dir>/synth/<device key>/<task>-<key>/``: ``pass/``, ``synth.json``, ``trajectory.json``;
``scripts/gpu_check.sh`` returns it in ``suite-extra.tgz``), and ``passnet synth SUITE --keep
correct --out DIR`` writes the same folders to DIR (``SYNTH_LIB=1``: ``synth-lib.tgz``). This
copies every task's folder that holds a written pass (the others are named and left out)
into the library with its paths made relative (``task: examples/suite/<task>``,
``pass_dir: pass``; the trajectory stays in the cache), and rewrites the library README's table
and its list of passes slower than eager on their own task from the ``synth.json`` files. The
README's prose (which run, which commit, its AS) is the author's to update.

    python scripts/synth_library.py /tmp/suite-extra/synth [--out examples/synth_passes]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path
from typing import Any

TABLE_HEAD = "| task | fused ops (first rule) |"
SLOW = re.compile(
    r"(\*\*For whole models, leave out the )\d+( passes that were slower than "
    r"eager on their own\ntask\*\*.*?scores b\): ).*?(\.\n`passnet accelerate)",
    re.S,
)


def collect(cache: Path) -> dict[str, Path]:
    """Each task's newest synthesis folder in ``cache`` (by its synth.json's mtime)."""
    found: dict[str, Path] = {}
    for report in sorted(cache.rglob("synth.json")):
        name = json.loads(report.read_text())["name"]
        if (
            name not in found
            or report.stat().st_mtime > (found[name] / "synth.json").stat().st_mtime
        ):
            found[name] = report.parent
    return found


def install(src: Path, out: Path) -> dict[str, Any] | None:
    """Copy one task's pass folder and report into ``out/<task>``, paths made relative;
    None (and nothing copied) for a task without a written pass."""
    report = json.loads((src / "synth.json").read_text())
    if report.get("status") != "written" or not (src / "pass").is_dir():
        print(f"{report['name']}: left out ({report.get('status')}: {report.get('reason')})")
        return None
    dst = out / report["name"]
    if (dst / "pass").exists():
        shutil.rmtree(dst / "pass")
    shutil.copytree(src / "pass", dst / "pass")
    report.update(task=f"examples/suite/{report['name']}", pass_dir="pass", trajectory=None)
    (dst / "synth.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def library_reports(out: Path) -> list[dict[str, Any]]:
    """The report of every task folder of the library that holds a pass, new or kept."""
    return [json.loads((d / "synth.json").read_text()) for d in sorted(out.iterdir())
            if (d / "pass").is_dir() and (d / "synth.json").is_file()]  # fmt: skip


def table_row(report: dict[str, Any]) -> str:
    variants = report["verification"]["variants"]
    speedups = [v["speedup"] for v in variants if v.get("speedup") is not None]
    chosen = (report.get("tuning") or {}).get("chosen")
    shape = ("/".join(str(chosen[k]) for k in ("flat_block", "row_tile", "max_rows", "num_warps"))
             if chosen else "-")  # fmt: skip
    gmean = report["verification"]["gmean_speedup"]
    spread = f" ({min(speedups):.2f}-{max(speedups):.2f})" if speedups else ""
    speed = f"{gmean:.3f}x{spread}" if gmean is not None else "-"
    return (
        f"| `{report['name']}` | {' '.join(report['rules'][0]['ops'])} | {len(report['rules'])}"
        f" | {len(variants)} | {max(v['tightest_t'] for v in variants)} | {speed} | {shape} |"
    )


def rewrite_readme(readme: Path, reports: list[dict[str, Any]]) -> None:
    """The table's rows and the slow passes' list, from the reports; the rest as it was."""
    text = readme.read_text()
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(TABLE_HEAD))
    end = start + 2
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    rows = [table_row(r) for r in sorted(reports, key=lambda r: r["name"])]
    text = "\n".join(lines[: start + 2] + rows + lines[end:])
    slow = sorted(r["name"] for r in reports
                  if (g := r["verification"]["gmean_speedup"]) is not None and g < 1.0)  # fmt: skip
    listed = ", ".join(f"`{name}`" for name in slow) or "none"
    text, n = SLOW.subn(lambda m: f"{m.group(1)}{len(slow)}{m.group(2)}{listed}{m.group(3)}", text)
    if n != 1:
        raise SystemExit(f"{readme}: the paragraph listing the slow passes was not found")
    readme.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache", type=Path, help="a bench run's synth cache (or a folder above it)")
    ap.add_argument("--out", type=Path, default=Path("examples/synth_passes"))
    args = ap.parse_args()
    found = collect(args.cache)
    if not found:
        raise SystemExit(f"{args.cache}: no synth.json below it")
    installed = [r for _, src in sorted(found.items()) if (r := install(src, args.out))]
    reports = library_reports(args.out)  # the README describes the whole library
    rewrite_readme(args.out / "README.md", reports)
    slow = sum(1 for r in reports if (g := r["verification"]["gmean_speedup"]) is not None
               and g < 1.0)  # fmt: skip
    print(
        f"{len(installed)} passes into {args.out}, which now holds {len(reports)} ({slow} "
        "slower than eager on their task); update the README's prose (run, commit, AS)"
    )


if __name__ == "__main__":
    main()
