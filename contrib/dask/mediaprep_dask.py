#!/usr/bin/env python3
"""Prepare a photo archive on a Dask cluster: one task per shard, each running

    mediaprep prepare FOLDER... --out OUT --shard k/N --resume --manifest OUT/.manifests/shard-k.jsonl

on a worker (the folders and OUT on a filesystem every worker sees). A task whose worker dies is
run again by Dask elsewhere; `--resume` makes the retry finish the shard without redoing or
duplicating what the first attempt completed. Exit status 75 (the environment failed: disk full,
OUT not writable) raises, so Dask retries the task; 1 (some inputs rejected: retrying cannot help)
is a result. At the end the shard manifests are merged, one line per input, into OUT/manifest.jsonl.

usage: python3 mediaprep_dask.py FOLDER... --out OUT [--shards N] [--scheduler tcp://HOST:PORT]
                                 [--mediaprep PATH] [--retries R] [-- EXTRA PREPARE ARGS]
Without --scheduler a local cluster of single-thread workers is started.
"""
import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

from dask.distributed import Client, LocalCluster, as_completed, progress

EX_TEMPFAIL = 75


def _die_with_parent():
    # A worker killed with SIGKILL takes its mediaprep with it (mediaprep also watches its parent).
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class EnvironmentFailed(RuntimeError):
    """mediaprep exited 75: the machine failed, so the task is worth retrying elsewhere."""


def run_shard(k, n, folders, out, mediaprep, extra):
    """One shard, on a worker. Returns the shard's summary; raises for Dask to retry."""
    manifest = os.path.join(out, ".manifests", f"shard-{k}.jsonl")
    os.makedirs(os.path.dirname(manifest), exist_ok=True)
    cmd = [mediaprep, "prepare", *folders, "--out", out, "--shard", f"{k}/{n}", "--resume",
           "--manifest", manifest, "--quiet", "--jobs", "1", "--threads", "1", *extra]
    started = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
    tail = proc.stderr.decode("utf-8", "replace")[-2000:]
    if proc.returncode == EX_TEMPFAIL:
        raise EnvironmentFailed(f"shard {k}/{n}: {tail}")
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"shard {k}/{n} exited {proc.returncode}: {tail}")
    return {"shard": k, "exit": proc.returncode, "seconds": round(time.time() - started, 3)}


def merge_manifests(out, n):
    """One line per input: the last record of it (a retry's `skipped` line carries the output too)."""
    merged = {}
    for k in range(n):
        path = os.path.join(out, ".manifests", f"shard-{k}.jsonl")
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            for raw in f:
                try:
                    rec = json.loads(raw)
                except ValueError:
                    continue  # a line cut by a kill mid-write
                key = (rec.get("input"), json.dumps(rec.get("part")))
                merged[key] = rec
    target = os.path.join(out, "manifest.jsonl")
    tmp = target + ".tmp"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        for rec in merged.values():
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    os.replace(tmp, target)
    return list(merged.values())


def run(folders, out, shards, scheduler=None, mediaprep="mediaprep", retries=3, extra=(), show_progress=True):
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, dashboard_address=None)
        scheduler = cluster.scheduler_address
    folders = [os.path.abspath(f) for f in folders]
    out = os.path.abspath(out)
    try:
        with Client(scheduler) as client:
            futures = [client.submit(run_shard, k, shards, folders, out, mediaprep, list(extra),
                                     key=f"mediaprep-shard-{k}-of-{shards}", pure=False, retries=retries)
                       for k in range(shards)]
            if show_progress:
                progress(futures)
            results = [f.result() for f in as_completed(futures)]
    finally:
        if cluster is not None:
            cluster.close()
    records = merge_manifests(out, shards)
    failed = [r for r in records if r.get("error")]
    summary = {
        "shards": shards, "inputs": len({r["input"] for r in records}),
        "prepared": sum(1 for r in records if not r.get("error") and not r.get("skipped")),
        "skipped": sum(1 for r in records if r.get("skipped")), "failed": len(failed),
        "bytes": sum(r.get("bytes") or 0 for r in records if not r.get("error")),
        "shardSeconds": sorted(r["seconds"] for r in results),
    }
    return summary


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--shards", type=int, default=16)
    p.add_argument("--scheduler", default=None, help="tcp://HOST:PORT of a running scheduler (default: a local cluster)")
    p.add_argument("--mediaprep", default="mediaprep", help="the mediaprep binary on the workers")
    p.add_argument("--retries", type=int, default=3)
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    summary = run(a.folders, a.out, a.shards, a.scheduler, a.mediaprep, a.retries, extra, not a.no_progress)
    print(json.dumps(summary))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
