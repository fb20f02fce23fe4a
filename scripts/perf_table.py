#!/usr/bin/env python3
"""Regenerate the measured tables of docs/performance.md from benchmarks/results/*.json.

Only the text between the markers '<!-- results:begin -->' and '<!-- results:end -->' is replaced,
so the prose around it (floors, method, notes) is kept."""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "performance.md")
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def table(path):
    with open(path) as f:
        r = json.load(f)
    if r["suite"] == "ksp-peer":
        return ksp_peer_table(path, r)
    dev = r["device"]
    floor = r["floor"]["gbytes_per_s"]
    if r["suite"].startswith("sparse"):
        return sparse_table(path, r)
    if r["suite"] == "apps":
        return apps_table(path, r)
    if any("config" in x for x in r["records"]):
        return banded_table(path, r)
    lines = [
        f"### {r['suite']} on {dev['name']} ({r['resource']})",
        "",
        f"File `{os.path.relpath(path, ROOT)}`, commit `{r['git_sha'][:12]}`, {r['date']}. "
        f"Copy floor measured in the same run: **{floor:.0f} GB/s** (bytes read + written). Rows "
        "on another device (the CPU peer) are measured against that device's own copy bandwidth, "
        "given in the floor column.",
        "",
        "| op | type | implementation | back end | n | median (µs) | GB/s | floor (GB/s) | fraction of floor |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    cpu_floor = r.get("cpu_peer_copy_gbytes_per_s", 0)
    for x in r["records"]:
        # Files without a per-record floor: CPU peer rows used the CPU copy bandwidth.
        other = x["resource"] == "/cpu" and r["resource"] != "/cpu"
        f = x.get("floor_gbytes_per_s", cpu_floor if other else floor)
        lines.append(
            f"| {x['op']} | {x['dtype']} | {x['impl']} | {x['resource']} | {x['n']} | "
            f"{1e6 * x['median_s']:.1f} | {x['gbytes_per_s']:.0f} | {f:.0f} | "
            f"{100 * x['fraction_of_copy']:.1f} % |")
    lines.append("")
    return "\n".join(lines)


def ksp_peer_table(path, r):
    """A Krylov solve beside its peer (PETSc) on the same machine: iterations and time per
    iteration of each run, and the product's share."""
    lines = [
        f"### {r['suite']} on {r['device']['name']}",
        "",
        f"File `{os.path.relpath(path, ROOT)}`, commit `{r['git_sha'][:12]}`, {r['date']}. "
        f"{r['what']}.",
        "",
        "| round | implementation | threads | iterations | ms per iteration | MatMult (ms a call) | true relative residual |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for x in r["records"]:
        mm = x["events"]["MatMult"]
        lines.append(
            f"| {x['round']} | {x['impl']} | {x['threads']} | {x['iterations']} | "
            f"{x['ms_per_iteration']:.1f} | {1e3 * mm['seconds'] / mm['calls']:.1f} | "
            f"{x['true_relative_residual']:.3g} |")
    lines.append("")
    return "\n".join(lines)


def banded_table(path, r):
    """Batched banded records: one row per case and implementation, each with its own floor (the
    copy bandwidth measured with buffers of the case's size) and the residual of its solution."""
    dev = r["device"]
    lines = [
        f"### {r['suite']} on {dev['name']} ({r['resource']})",
        "",
        f"File `{os.path.relpath(path, ROOT)}`, commit `{r['git_sha'][:12]}`, {r['date']}. "
        "Each row's floor is the copy bandwidth measured in the same run with buffers moving as "
        "many bytes as the case's floor; GB/s counts the floor's bytes (docs/performance.md, "
        "Batched banded solvers). cuSPARSE refactors in every call, so its rows use the "
        "factor_solve floor; its `_restore` rows time the copy back of the diagonals it overwrites.",
        "",
        "| group | op | implementation | case | median (µs) | GB/s | floor (GB/s) | fraction of floor | residual |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for x in r["records"]:
        res = x.get("residual")
        res = "–" if res is None else f"{res:.1e}"
        lines.append(
            f"| {x.get('group') or '–'} | {x['op']} | {x['impl']} | {x.get('config', '')} | "
            f"{1e6 * x['median_s']:.1f} | {x['gbytes_per_s']:.0f} | "
            f"{x['floor_gbytes_per_s']:.0f} | {100 * x['fraction_of_copy']:.1f} % | {res} |")
    lines.append("")
    return "\n".join(lines)


def sparse_table(path, r):
    """SpMV records (time, GB/s of the (12 nnz + 20 n)-byte floor, fraction of the copy bandwidth
    measured in the same run, error against a long-double product) and CG time per iteration
    (iterations in the case's text); a peer's file (CuPy) has no floor of its own."""
    dev = r["device"]
    lines = [
        f"### {r['suite']} on {dev['name']} ({r['resource']})",
        "",
        f"File `{os.path.relpath(path, ROOT)}`, commit `{r['git_sha'][:12]}`, {r['date']}. "
        "SpMV rows: floor (12 nnz + 20 n) bytes; GB/s counts those bytes; the fraction is of the "
        "copy bandwidth measured in the same run (– for peers run without one); error is the "
        "largest |y - y_ref| / (|A||x|)_i. cg_iteration rows: KSPSolve time over iterations "
        "(CG + Jacobi, b = A 1, rtol 1e-8; residual: final true relative residual where known).",
        "",
        "| op | implementation | case | median (µs) | GB/s | fraction of copy | error / residual |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for x in r["records"]:
        res = x.get("residual")
        res = "–" if res is None or res < 0 else f"{res:.1e}"
        spmv = x["op"] == "spmv"
        gbs = f"{x['gbytes_per_s']:.0f}" if spmv else "–"
        frac = f"{100 * x['fraction_of_copy']:.1f} %" if spmv and x["fraction_of_copy"] else "–"
        lines.append(
            f"| {x['op']} | {x['impl']} | {x.get('config', '')} | {1e6 * x['median_s']:.1f} | "
            f"{gbs} | {frac} | {res} |")
    lines.append("")
    return "\n".join(lines)


def apps_table(path, r):
    """Application steps (gpusolve ch -bench): time per step and per grid point against the issue's
    floor (80 bytes per point for a 2D step in double, 16 in 1D) over the copy bandwidth measured in
    the same run, and where the time goes (stencil, banded solves: logged in separate steps)."""
    dev = r["device"]
    lines = [
        f"### {r['suite']} on {dev['name']} ({r['resource']})",
        "",
        f"File `{os.path.relpath(path, ROOT)}`, commit `{r['git_sha'][:12]}`, {r['date']}. "
        "Floor: 10 words per point for a 2D Cahn-Hilliard step (80 bytes in double, the issue's "
        "figure) and 2 for a 1D one, over the copy bandwidth measured in the same run; stencil and "
        "solves: milliseconds per step from further steps with the event log on.",
        "",
        "| case | ms per step | ns per point | fraction of floor | stencil (ms) | solves (ms) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for x in r["records"]:
        words = x.get("config", "").split()
        kv = dict(w.split("=", 1) for w in words if "=" in w)
        case = " ".join(w for w in words if "=" not in w)
        lines.append(
            f"| {case} | {1e3 * x['median_s']:.4f} | {kv.get('ns/point/step', '–')} | "
            f"{100 * x['fraction_of_copy']:.1f} % | {kv.get('stencil_ms', '–')} | "
            f"{kv.get('solves_ms', '–')} |")
    lines.append("")
    return "\n".join(lines)


def suite(path):
    with open(path) as f:
        return json.load(f).get("suite", "")


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "benchmarks", "results", "*.json")))
    # A/B records (suite "...-ab": variants of one change, every round) are quoted by the prose
    # that discusses them; only their names are listed here.
    ab = [p for p in files if suite(p).endswith("-ab")]
    files = [p for p in files if p not in ab]
    body = "\n".join(table(p) for p in files) if files else "_No results recorded yet._\n"
    if ab:
        body += "\nA/B records (each round of each variant, discussed above): " + ", ".join(
            f"`{os.path.relpath(p, ROOT)}`" for p in ab) + ".\n"
    with open(DOC) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{DOC}: markers {BEGIN} / {END} not found")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(DOC, "w") as f:
        f.write(head + BEGIN + "\n" + body + "\n" + END + tail)
    print(f"updated {DOC} from {len(files)} result file(s)")


if __name__ == "__main__":
    main()
