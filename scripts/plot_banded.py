#!/usr/bin/env python3
"""Plot a banded sweep (benchmarks/results/banded-*.json) into docs/banded-<device>.png.

Left: time per unknown against rows per system n, one line per batch size, for gpusolve's factored
solve and for the cuSPARSE routine measured beside it. Right: speed-up of gpusolve over cuSPARSE as
a batch x n grid. Needs matplotlib (pip install matplotlib); not part of the build or the tests."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(path):
    r = json.load(open(path))
    # Plain cases only: interleaved, per-system, non-periodic, double (sweep and headline groups).
    recs = [x for x in r["records"] if x.get("group") in ("sweep", "headline")
            and x["dtype"] == "double" and x.get("layout") == "interleaved"
            and not x.get("shared") and not x.get("periodic") and not x.get("spd")]
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    for row, (bands, peer) in enumerate([(5, "gpsv_interleaved"), (3, "gtsv_interleaved")]):
        ours = {(x["batch"], x["n"]): x["median_s"] for x in recs
                if x["bands"] == bands and x["impl"] == "gpusolve" and x["mode"] == "solve"}
        theirs = {(x["batch"], x["n"]): x["median_s"] for x in recs
                  if x["bands"] == bands and x["op"] == peer}
        batches = sorted({b for b, _ in ours})
        ns = sorted({n for _, n in ours})
        ax = axes[row][0]
        for i, b in enumerate(batches):
            pts = sorted((n, t) for (bb, n), t in ours.items() if bb == b)
            c = plt.cm.viridis(i / max(1, len(batches) - 1))
            ax.plot([n for n, _ in pts], [1e9 * t / (n * b) for n, t in pts], "-o", color=c,
                    label=f"gpusolve, batch {b}")
            pts = sorted((n, t) for (bb, n), t in theirs.items() if bb == b)
            if pts:
                ax.plot([n for n, _ in pts], [1e9 * t / (n * b) for n, t in pts], "--x", color=c,
                        label=f"cuSPARSE, batch {b}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("rows per system n")
        ax.set_ylabel("ns per unknown")
        name = "penta" if bands == 5 else "tri"
        ax.set_title(f"{name}: solid gpusolve solve, dashed cuSPARSE {peer.split('_')[0]}", fontsize=10)
        ax.legend(fontsize=6, ncol=2)
        ax.grid(True, which="both", alpha=0.3)
        ax = axes[row][1]
        grid = [[theirs[(b, n)] / ours[(b, n)] if (b, n) in ours and (b, n) in theirs else float("nan")
                 for n in ns] for b in batches]
        im = ax.imshow(grid, origin="lower", cmap="RdYlGn", vmin=0, vmax=4, aspect="auto")
        ax.set_xticks(range(len(ns)), [str(n) for n in ns])
        ax.set_yticks(range(len(batches)), [str(b) for b in batches])
        ax.set_xlabel("rows per system n")
        ax.set_ylabel("systems (batch)")
        ax.set_title(f"{name}: speed-up over {peer.split('_')[0]} (restore not counted)", fontsize=10)
        for i, row_vals in enumerate(grid):
            for j, v in enumerate(row_vals):
                if v == v:
                    ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax)
    fig.suptitle(f"Batched banded solves, double, {r['device']['name']}, commit {r['git_sha'][:7]}")
    fig.tight_layout()
    dev = r["device"]["name"].lower().replace(" ", "-")
    out = os.path.join(ROOT, "docs", f"banded-{dev}.png")
    fig.savefig(out, dpi=80)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(ROOT, "benchmarks", "results", "banded-nvidia-h200.json"))
