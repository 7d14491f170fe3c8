#!/usr/bin/env python3
"""Two builds of mediaprep side by side on whole corpora: whole-process time per image (3 interleaved
passes, the fastest of each) and the SPEC section 6 score of every output, to catch a regression.
usage: compare-builds.py BASE_BINARY NEW_BINARY CORPUS... (needs MEDIAPREP_BENCH, and its venv as PYTHON)"""
import subprocess, time, os, json, sys, glob, shutil
bins = {"base": sys.argv[1], "now": sys.argv[2]}
python = os.environ.get("PYTHON", "python3")
quality = os.path.join(os.environ["MEDIAPREP_BENCH"], "quality.py")  # the benchmark tools folder
for corpus in sys.argv[3:]:
    files = sorted(glob.glob(corpus + "/*"))
    totals = {k: [] for k in bins}
    outs = {}
    for rep in range(3):
        for name, b in (bins.items() if rep % 2 == 0 else reversed(list(bins.items()))):
            od = f"/tmp/cmp-{name}"; shutil.rmtree(od, ignore_errors=True)
            t = 0.0; res = {}
            for f in files:
                t0 = time.perf_counter()
                r = subprocess.run([b, "prepare", f, "--out", od, "--json"], capture_output=True, text=True)
                t += time.perf_counter() - t0
                try: res[f] = json.loads(r.stdout)[0]
                except Exception: res[f] = {"output": None, "error": r.stderr[:100]}
            totals[name].append(t); outs[name] = res
    print(corpus, {k: [round(x, 2) for x in v] for k, v in totals.items()},
          "ratio base/now (min): %.3f" % (min(totals["base"]) / min(totals["now"])))
    worst = 0; means = {}
    for name in bins:
        sc = []
        for f in files:
            o = outs[name][f].get("output")
            if not o: sc.append(None); continue
            q = subprocess.run([python, quality, f, o], capture_output=True, text=True)
            sc.append(json.loads(q.stdout)["ssim"] if q.returncode == 0 else None)
        means[name] = sc
    for i, f in enumerate(files):
        a, b = means["base"][i], means["now"][i]
        flag = "" if a == b else "  <-- differs"
        print("  %-36s base %s now %s%s" % (os.path.basename(f), a, b, flag))
    ok = [i for i in range(len(files)) if means["base"][i] is not None and means["now"][i] is not None]
    print("  mean base %.4f now %.4f over %d" % (sum(means["base"][i] for i in ok)/len(ok), sum(means["now"][i] for i in ok)/len(ok), len(ok)))
