"""Time fit + sample of every baseline synthesizer on the Adult training file (32,561 rows).

Run from the repository root::

    python benchmarks/synth.py [--repeats 3]

It prints a Markdown table (median seconds over the repeats, and the machine it ran on) to paste
into the "Synthesizers" section of benchmarks/README.md.
"""

import argparse

import sklearn
from _timing import machine, median_seconds

import privlib as pl


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per synthesizer (median)")
    args = parser.parse_args()

    train = pl.load_dataset("adult", part="train")
    # the load average says how much other work shared the machine while timing
    print(
        f"{machine()}, "
        f"scikit-learn {sklearn.__version__}; Adult train {train.shape[0]:,} x {train.shape[1]}, "
        f"median of {args.repeats} runs\n"
    )
    print("| synthesizer | fit (s) | sample n = 32,561 (s) | total (s) |")
    print("|---|---:|---:|---:|")
    for name, cls in pl.synth.SYNTHESIZERS.items():
        model = cls()
        fit = median_seconds(lambda model=model: model.fit(train), args.repeats)
        sample = median_seconds(lambda model=model: model.sample(random_state=0), args.repeats)
        print(f"| {name} | {fit:.2f} | {sample:.2f} | {fit + sample:.2f} |")


if __name__ == "__main__":
    main()
