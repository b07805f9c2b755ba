"""Scaling of mbs.batch (Python over the C thread pool): K runs of one model stepped with RK4
at 1 kHz on 1 and 2 threads, against a Python loop of Data/Stepper calls; prints the CPU,
the load average and a table of wall and CPU seconds (all threads), runs per second and
speed-ups, and checks the threaded
results are bitwise those of one thread.
Usage: /usr/bin/python3 bench/bench_batch.py [--quick]"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mbs  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODELS = [("four-bar (loop, 1 dof)", os.path.join(ROOT, "models", "fourbar_analytic.xml"), {}),
          ("ANYmal (floating, 18 dof)",
           os.path.join(ROOT, "..", "shared", "robots", "anymal.urdf"), {"floating_base": True, "balance_inertia": True})]


def cpu():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def timed(fn):
    """Wall time and CPU time of this process (all its threads) of fn(), and its result."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


def bench(name, path, opts, K, nstep):
    m = mbs.load_model(path, **opts)
    v0 = np.tile(mbs.Data(m).v, (K, 1)) + np.linspace(0, 1, K)[:, None]
    rows, ref = [], None
    for threads in (1, 2):
        wall, cpu_s, res = timed(lambda: mbs.batch(m, v0=v0, nstep=nstep, threads=threads))
        ref = res if ref is None else ref
        rows.append((f"mbs.batch, {threads} thread{'s' if threads > 1 else ''}", wall, cpu_s,
                     np.array_equal(res.q, ref.q) and np.array_equal(res.v, ref.v)))
    k_loop = max(1, K // 16)  # the Python loop on fewer runs, scaled up

    def loop():
        for k in range(k_loop):
            d = mbs.Data(m)
            d.v = v0[k]
            s = mbs.Stepper(d, "rk4")
            for _ in range(nstep):
                s.step(1e-3)
    wall, cpu_s, _ = timed(loop)
    rows.append(("Python loop of Stepper.step", wall * K / k_loop, cpu_s * K / k_loop, None))
    print(f"\n{name}: K = {K} runs x {nstep} RK4 steps of 1 ms")
    print(f"  {'':30s} {'wall s':>7s} {'cpu s':>7s} {'runs/s':>8s} {'sim s/wall s':>13s} "
          f"{'speed-up':>9s} bitwise")
    for label, wall, cpu_s, same in rows:
        print(f"  {label:30s} {wall:7.3f} {cpu_s:7.3f} {K / wall:8.1f} "
              f"{K * nstep * 1e-3 / wall:13.1f} {rows[0][1] / wall:9.2f} "
              f"{'' if same is None else ('yes' if same else 'NO')}")


def main():
    quick = "--quick" in sys.argv
    print(f"CPU: {cpu()}, {os.cpu_count()} cores; load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, path, opts in MODELS:
        if os.path.exists(path):
            bench(name, path, opts, 64 if quick else 256, 200 if quick else 1000)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
