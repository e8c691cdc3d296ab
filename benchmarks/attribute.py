"""Timings of privlib.attribute on the bundled data (run: python benchmarks/attribute.py).

Recorded on the project machine (2 cores, shared with other jobs; 2026-11-21), best of 5 runs
(knn_risk on ACS: one run):

* cap, ACS 10,000 original x 10,000 synthetic records, keys SEX, RACE, MAR:
  target DIS 0.0030 s, joint target DIS + HICOV 0.0032 s
* cap, Adult 48,842 x 48,842, keys age, sex, race, marital-status, native-country,
  target income: 0.024 s
* knn_risk (k = 3), ACS 10,000 x 10,000, target DIS: 1.04 s
* knn_risk (k = 3), CE 994 x 994, Income -> Expenditure: 0.010 s
"""

import time

import privlib as pl
from privlib.attribute import cap, knn_risk


def best_of(runs, function, *args, **kwargs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    acs = pl.load_dataset("acs")
    acs_s = pl.synth.IndependentMarginals().fit(acs).sample(random_state=0)
    keys = ["SEX", "RACE", "MAR"]
    print(f"cap ACS DIS: {best_of(5, cap, acs, acs_s, keys, 'DIS'):.4f} s")
    print(f"cap ACS DIS+HICOV: {best_of(5, cap, acs, acs_s, keys, ['DIS', 'HICOV']):.4f} s")
    adult = pl.load_dataset("adult")
    adult_s = adult.sample(frac=1.0, random_state=0)
    adult_keys = ["age", "sex", "race", "marital-status", "native-country"]
    print(f"cap Adult income: {best_of(5, cap, adult, adult_s, adult_keys, 'income'):.4f} s")
    print(f"knn_risk ACS DIS: {best_of(1, knn_risk, acs, acs_s, keys, 'DIS'):.2f} s")
    ce = pl.load_dataset("ce")
    ce_s = pl.synth.SequentialTrees(synthesize=["Expenditure"]).fit(ce).sample(random_state=0)
    print(f"knn_risk CE: {best_of(5, knn_risk, ce, ce_s, ['Income'], 'Expenditure'):.4f} s")


if __name__ == "__main__":
    main()
