"""The HTML report at campaign size (issue 28): build time and file size for 20 systems x
10,000 queries x 3 metrics, and the time to first paint in headless Chromium (Debian's chromium
and chromium-driver, through selenium). No peer has an offline HTML report; the figures are
absolute, wall and CPU of this process for the build.

    python benches/bench_report.py [--systems 20] [--queries 10000]
    python benches/bench_report.py --systems 300 --queries 1000 --metrics 5 --all-pairs --test tukey

``--all-pairs`` compares every pair (issue 52: 300 systems make 44,850 pairs, shown as a matrix
drawn when in view; the time to draw it after scrolling to it is printed too); by default every
system is compared with the first.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from ragmeter import compare_many, report


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=3, choices=range(1, 6))
    parser.add_argument("--test", default="t")
    parser.add_argument("--all-pairs", action="store_true")
    args = parser.parse_args()
    metrics = ("map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank")[: args.metrics]
    rng = np.random.default_rng(0)
    queries = [f"q{i:05d}" for i in range(args.queries)]
    systems = {
        f"system{s:02d}": {
            metric: dict(zip(queries, rng.random(args.queries).tolist(), strict=True))
            for metric in metrics
        }
        for s in range(args.systems)
    }
    baseline = None if args.all_pairs else "system00"
    campaign = compare_many(systems, baseline=baseline, test=args.test)
    folder = Path(tempfile.mkdtemp())
    path = folder / "report.html"
    wall, cpu0 = time.perf_counter(), cpu()
    report(campaign, output=path)
    build_wall, build_cpu = time.perf_counter() - wall, cpu() - cpu0
    size = path.stat().st_size
    load = os.getloadavg()[0]
    design = "all pairs" if args.all_pairs else "against system00"
    print(
        f"{args.systems} systems x {args.queries} queries x {args.metrics} metrics, {design}, "
        f"test {args.test} ({len(campaign.pairs):,} pairs; load {load:.1f})"
    )
    print(f"build: {build_wall:.2f} s wall, {build_cpu:.2f} s CPU; file {size / 2**20:.1f} MiB")
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if browser and driver:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu"):
            options.add_argument(argument)
        chrome = webdriver.Chrome(service=Service(driver), options=options)
        try:
            start = time.perf_counter()
            chrome.get(path.as_uri())
            loaded = time.perf_counter() - start
            paint = chrome.execute_script(
                "var p = performance.getEntriesByName('first-contentful-paint')[0];"
                "return p ? p.startTime : null;"
            )
            rows = len(chrome.find_elements("css selector", 'table[data-role="per-query"] tr'))
            print(
                f"browser: first contentful paint {paint:.0f} ms; page loaded in {loaded:.2f} s; "
                f"{rows - 1} per-query rows rendered of {args.queries}"
            )
            matrix = chrome.find_elements("css selector", "[data-pairs-matrix]")
            if matrix:
                start = time.perf_counter()
                chrome.execute_script("arguments[0].scrollIntoView()", matrix[0])
                while not matrix[0].get_attribute("data-drawn"):
                    time.sleep(0.02)
                drawn = time.perf_counter() - start
                print(f"browser: pairs matrix drawn {drawn:.2f} s after scrolling to it")
        finally:
            chrome.quit()
    else:
        print("browser: chromium/chromedriver not found, first paint not measured")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
