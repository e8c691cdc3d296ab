"""Make the capstone's mystery release (for the lecturer; students audit release.csv blind).

The custodian's training data is the first part of
``pl.datasets.sample_split(pl.load_dataset("adult"), 2000, 2000, random_state=16)``, the holdout
the second. The release mixes 1,700 records of a sound generator (sequential trees) with 300
training records perturbed by a little noise (additive noise), shuffled: a leak that exact-match
checks miss and distance attacks find. Run from the repository root:
``python data/capstone/make_release.py``.
"""

from pathlib import Path

import numpy as np
import pandas as pd

import privlib as pl

SEED = 16
N_SOUND, N_LEAKED = 1700, 300


def main() -> None:
    rng = np.random.default_rng(SEED)
    train, _ = pl.datasets.sample_split(pl.load_dataset("adult"), 2000, 2000, random_state=SEED)
    sound = pl.synth.SequentialTrees().fit(train).sample(N_SOUND, random_state=rng)
    leaked = pl.synth.AdditiveNoise().fit(train).sample(N_LEAKED, random_state=rng)
    release = pd.concat([sound, leaked], ignore_index=True).iloc[rng.permutation(N_SOUND + N_LEAKED)]
    release.to_csv(Path(__file__).with_name("release.csv"), index=False)


if __name__ == "__main__":
    main()
