#!/usr/bin/env python3
"""CuPy peer of the sparse benchmarks: CG + Jacobi and SpMV on the 7-point Laplacian.

Builds the same matrix as GsMatCreateLaplacian(n, n, n, 7) (diagonal 6, -1 per neighbour,
Dirichlet boundaries eliminated) on the GPU, b = A 1, x0 = 0, and runs
cupyx.scipy.sparse.linalg.cg with the Jacobi preconditioner (M = diag(A)^-1 as a sparse matrix)
to rtol 1e-8; reports the iterations and the time per iteration, and the median time of y = A x
(cuSPARSE underneath). Writes a JSON file in the benchmark schema (suite "sparse-cupy") when -json
is given. Exits 0 with a message when CuPy is not installed (the peer is optional).

usage: peer_cupy_cg.py [-n 256] [-repeats 20] [-json FILE] [-sha SHA]
"""
import datetime
import json
import sys
import time


def arg(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def laplacian7(cp, sp, n):
    one = cp.ones(n)
    t = sp.diags([-one[:-1], 2 * one, -one[:-1]], [-1, 0, 1], format="csr")
    i = sp.identity(n, format="csr")
    # Unknown (i, j, k) at i + n (j + n k): the first factor of kron varies slowest.
    a = sp.kron(i, sp.kron(i, t)) + sp.kron(i, sp.kron(t, i)) + sp.kron(t, sp.kron(i, i))
    a = a.tocsr()
    a.sort_indices()
    return a


def median_time(cp, fn, repeats):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    fn()
    times = []
    for _ in range(repeats):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    try:
        import cupy as cp
        import cupyx.scipy.sparse as sp
        import cupyx.scipy.sparse.linalg as spla
    except ImportError as e:
        print(f"peer_cupy_cg: CuPy is not available ({e}); skipped")
        return 0
    n = int(arg("-n", "256"))
    repeats = int(arg("-repeats", "20"))
    a = laplacian7(cp, sp, n)
    m = a.shape[0]
    b = a @ cp.ones(m)
    minv = sp.diags(1.0 / a.diagonal(), 0, format="csr")
    x = cp.ones(m)
    y = cp.empty(m)

    def spmv():
        y[...] = a @ x

    spmv_med, spmv_min = median_time(cp, spmv, repeats)
    its = [0]

    def count(_):
        its[0] += 1

    def solve(callback=None):
        try:
            return spla.cg(a, b, x0=cp.zeros(m), rtol=1e-8, atol=0.0, maxiter=10000, M=minv,
                           callback=callback)
        except TypeError:  # CuPy before the rtol keyword
            return spla.cg(a, b, x0=cp.zeros(m), tol=1e-8, atol=0.0, maxiter=10000, M=minv,
                           callback=callback)

    sol, info = solve(count)
    r = b - a @ sol
    rel = float(cp.linalg.norm(r) / cp.linalg.norm(b))
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    solve()
    cp.cuda.Device().synchronize()
    seconds = time.perf_counter() - t0
    per = seconds / its[0] if its[0] else 0.0
    name = f"7-point {n}^3"
    print(f"{name} (CuPy {cp.__version__}, cupyx.scipy.sparse)")
    print(f"  cupy spmv:  {1e6 * spmv_med:10.1f} us")
    print(f"  cupy cg + jacobi: {its[0]} iterations (info {info}), {1e3 * per:.3f} ms per "
          f"iteration, true relative residual {rel:.2e}")
    path = arg("-json", "")
    if path:
        dev = cp.cuda.runtime.getDeviceProperties(0)
        nnz = int(a.nnz)
        floor = 12.0 * nnz + 20.0 * m
        rec_base = {"dtype": "double", "impl": "cupy", "resource": "/gpu/cuda:0", "n": m,
                    "group": "", "bands": 0, "batch": 0, "unknowns": 0, "layout": "",
                    "shared": False, "periodic": False, "spd": False, "mode": ""}
        records = [
            dict(rec_base, op="spmv", repeats=repeats, bytes=floor, median_s=spmv_med,
                 min_s=spmv_min, gbytes_per_s=floor / spmv_med / 1e9, floor_gbytes_per_s=0,
                 fraction_of_copy=0, config=f"{name} n={m} nnz={nnz} cupy", residual=-1),
            dict(rec_base, op="cg_iteration", repeats=1, bytes=0, median_s=per, min_s=per,
                 gbytes_per_s=0, floor_gbytes_per_s=0, fraction_of_copy=0,
                 config=f"{name} cg+jacobi rtol=1e-8 its={its[0]} cupy", residual=rel),
        ]
        out = {
            "suite": "sparse-cupy",
            "git_sha": arg("-sha", "unknown"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "gpusolve_version": "",
            "build": f"CuPy {cp.__version__}",
            "resource": "/gpu/cuda:0",
            "device": {"name": dev["name"].decode(),
                       "compute_capability": f"{dev['major']}.{dev['minor']}",
                       "multiprocessors": dev["multiProcessorCount"],
                       "memory_bytes": dev["totalGlobalMem"], "l2_bytes": dev["l2CacheSize"]},
            "floor": {"kind": "none (peer run; see the sparse suite's file for the copy floor)",
                      "gbytes_per_s": 0},
            "records": records,
        }
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
        print(f"results written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
