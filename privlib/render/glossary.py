"""The audit report's glossary and references, generated from what the report says.

The glossary has one entry per term of :data:`TERMS` that the report's text uses (the measures'
own titles, rules and sources, from their declarations in :mod:`privlib.catalogue`, are in
the verdict lines and the appendix). The references list each work of
:data:`REFERENCES` that the report's text cites, one work per entry. Both read the report's text
(its JSON dump and the fixed sentences of its pages), so a term or work the report does not use
is left out and one it starts using is listed without editing a page.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import NamedTuple

from markupsafe import Markup

from privlib.render.pages import render_page

__all__ = [
    "TERMS",
    "REFERENCES",
    "Term",
    "Reference",
    "glossary_entries",
    "cited_works",
    "glossary_html",
    "in_columns",
]


class Term(NamedTuple):
    """A word of the report and what it means; ``pattern`` finds it in the report's text."""

    term: str
    pattern: str
    meaning: str


class Reference(NamedTuple):
    """A work the report may cite; ``pattern`` finds the citation in the report's text."""

    pattern: str
    work: str


#: The report's words (the measures' own titles come from their declarations).
TERMS = (
    Term(
        "baseline",
        r"\bbaseline",
        "What chance or guessing gives on these data, without the release: the "
        "point a measure is read against.",
    ),
    Term(
        "threshold",
        r"\bthreshold",
        "How far beyond its baseline a measure may go before it is called a "
        "risk; each rule and its source are in the appendix.",
    ),
    Term(
        "interval",
        r"\binterval",
        "The range of values the data support at the stated confidence (95% "
        "unless set otherwise). A verdict is risk only when the whole interval lies beyond the threshold.",
    ),
    Term(
        "holdout",
        r"\bholdout",
        "Real records of the same population that the generator never saw; what "
        "the release reveals about them is what it reveals about anyone, not about the training data.",
    ),
    Term(
        "key variables",
        r"\bkeys?\b",
        "The variables an intruder is assumed to know about a person (age, "
        "sex, ...), used to find them in the release.",
    ),
    Term("sensitive variable", r"\bsensitive\b", "A variable an intruder should not learn from the release."),
    Term(
        "CAP",
        r"\bCAP\b",
        "Correct attribution probability: the share of synthetic records with a "
        "person's keys that carry the person's true sensitive value. Version 1 counts a person whose keys "
        "are absent from the release as 0, version 2 leaves them out.",
    ),
    Term(
        "DCR",
        r"\bDCR\b",
        "Distance to the closest record: how near a synthetic record comes to the "
        "nearest real record (0 = identical), in Gower distance.",
    ),
    Term(
        "Gower distance",
        r"\bGower\b",
        "A distance between records with numeric and categorical "
        "variables: each variable contributes its share of the range (numbers) or 0/1 (categories), "
        "averaged; 0 means identical.",
    ),
    Term("Hamming distance", r"\bHamming\b", "The number of variables on which two records differ."),
    Term(
        "TPR / FPR",
        r"\b(TPR|FPR|false-positive rate|true-positive rate)\b",
        "True-positive rate: the "
        "share of training records an attack calls members. False-positive rate: the share of holdout "
        "records it wrongly calls members. An attack that finds a few members at a very low "
        "false-positive rate is a risk to those people even when its average is near chance.",
    ),
    Term(
        "AUC",
        r"\bAUC\b",
        "Area under the ROC curve: the chance that an attack scores a random member "
        "above a random non-member (0.5 = guessing, 1 = always right).",
    ),
    Term(
        "F1 and F_max",
        r"\bF_max\b|\bF1\b",
        "F1 combines an attack's precision and recall; F_max is the "
        "F1 of calling every record a member, the partition attack's baseline.",
    ),
    Term(
        "predicates",
        r"\bpredicates?\b",
        "Conditions on a record's values (for example age 37 and sex "
        "female) that an attacker reads off the synthetic data to single out one person.",
    ),
    Term(
        "singling out, linkability, inference",
        r"\bsingl(e|ing) out|\blinkability\b|\binference\b",
        "The three ways European data protection authorities judge anonymisation: isolating one person, "
        "joining two sets of records about a person, and deducing a person's value (Article 29 Working "
        "Party, Opinion 05/2014).",
    ),
    Term(
        "pMSE",
        r"\bpMSE\b",
        "Propensity score mean squared error: how well a model tells synthetic from "
        "real records; the ratio compares it with what two samples of one distribution give (1).",
    ),
    Term(
        "TVD",
        r"\bTVD\b|total variation distance",
        "Total variation distance between two distributions "
        "of one variable: half the sum of the absolute differences of their shares (0 = identical shares, "
        "1 = no overlap).",
    ),
    Term(
        "KS statistic",
        r"\bKS\b",
        "Kolmogorov-Smirnov statistic: the largest gap between two cumulative "
        "distributions of a numeric variable.",
    ),
    Term(
        "TSTR / TRTR",
        r"\bTSTR\b|\bTRTR\b",
        "Train on synthetic, test on real / train on real, test on "
        "real: a model's score on unseen real records when fitted on the release, and when fitted on the "
        "real data. Their utility ratio, (TSTR - chance) / (TRTR - chance), is the share of the real "
        "data's gain over chance that the release keeps.",
    ),
    Term(
        "Holm adjustment",
        r"\bHolm\b",
        "A step-down correction for several tests of one question: it "
        "keeps the chance of any false alarm at the stated level (Holm 1979).",
    ),
    Term(
        "Fisher's exact test",
        r"\bFisher",
        "A test of whether two counts out of two totals differ more "
        "than chance allows, exact for small counts.",
    ),
    Term(
        "Clopper-Pearson, Wilson, Newcombe intervals",
        r"Clopper|\bWilson\b|Newcombe",
        "Intervals for a "
        "proportion (Clopper-Pearson: exact; Wilson: score) and for a difference of two proportions "
        "(Newcombe).",
    ),
    Term(
        "bootstrap",
        r"\bbootstrap",
        "An interval from recomputing a measure on records drawn with replacement from the data, many times.",
    ),
    Term(
        "exact test",
        r"\bexact test",
        "A test whose verdict is its p-value's: risk when the (Holm-adjusted) p-value is at or below "
        "1 - confidence. Its interval is shown for scale but does not decide, so it may cross the "
        "threshold of a measure judged at risk.",
    ),
    Term(
        "close copy, identical copy",
        r"\b(close|identical) cop",
        "A close copy matches a training record in every category and every number within a "
        "stated share (1%) of its range (the copy test); an identical copy repeats every value exactly "
        "(distance 0).",
    ),
    Term(
        "control",
        r"\bcontrol\b",
        "Real records the generator never saw (the holdout), attacked the same way as the training "
        "records: what an attack achieves on them is what the release teaches about anyone, not about "
        "the people it was trained on.",
    ),
    Term(
        "adversarial accuracy",
        r"adversarial accuracy|adversarial_accuracy",
        "How often a record's nearest neighbour lies in its own table rather than the other (real or "
        "synthetic); 0.5 means the two tables mix as well as two samples of one population (Yale et al. 2019).",
    ),
    Term(
        "privacy loss",
        r"privacy loss|privacy_loss",
        "Adversarial accuracy against the holdout minus that against the training data: how much "
        "nearer the release lies to the people it was trained on than to others (Yale et al. 2019); "
        "0 = no loss.",
    ),
    Term(
        "discriminator",
        r"\bdiscriminator",
        "A model trained to tell real records from synthetic ones; the audit reads how much more "
        "often it judges synthetic records real than it judges real holdout records real.",
    ),
    Term(
        "Cramér's V",
        r"Cram[ée]r",
        "The strength of association between two variables from their cross-table, from 0 "
        "(independent) to 1 (one determines the other).",
    ),
    Term(
        "partitioning attack",
        r"partitioning attack|partition_f1",
        "Calls a record a member of the training data when a synthetic record differs from it in at "
        "most a few variables (Hamming distance), scored by F1 against calling everyone a member "
        "(El Emam, Mosquera & Fang 2022).",
    ),
    Term(
        "DCR attack, DCR-difference attack",
        r"\bDCR(-difference)? attack|\bdcr_diff\b|\bdcr at\b",
        "Membership attacks on distances: a record is called a member when a synthetic record lies "
        "very near it (DCR), or much nearer than the record's nearest other real record (DCR "
        "difference; Chen et al. 2020, GAN-Leaks).",
    ),
    Term(
        "density-ratio attack",
        r"density-ratio|density_ratio",
        "A membership attack that compares how dense the synthetic data is around a record with how "
        "dense real data is there (DOMIAS, van Breugel et al. 2023): a generator that memorised a "
        "record piles synthetic records on it.",
    ),
    Term(
        "local-neighbourhood attack",
        r"local-neighbourhood|local_neighbourhood",
        "A membership attack that counts how many of a record's nearest records are synthetic, the "
        "nearest weighing most.",
    ),
    Term(
        "classifier attack",
        r"\bclassifier\b",
        "A membership attack that trains a model to tell synthetic from real records and calls a "
        "record a member when the model finds it synthetic-like (Houssiau et al. 2022, TAPAS).",
    ),
    Term(
        "p-value",
        r"p-value|p_value",
        "The chance of a result at least as extreme if the release were "
        "no risk; a value below 1 - confidence counts as evidence.",
    ),
)

#: The works the report may cite, one per entry (the pattern is how the report cites it).
REFERENCES = (
    Reference(
        r"Opinion 05/2014|Article 29",
        "Article 29 Data Protection Working Party. Opinion 05/2014 on "
        "Anonymisation Techniques (WP216), 2014.",
    ),
    Reference(
        r"Baillargeon|Charest",
        "Baillargeon M, Charest A-S. A closer look at the CAP risk measure "
        "for synthetic datasets. Privacy in Statistical Databases (PSD), 2020.",
    ),
    Reference(
        r"Breugel|DOMIAS",
        "van Breugel B, Sun H, Qian Z, van der Schaar M. Membership inference "
        "attacks against synthetic data through overfitting detection. AISTATS 2023.",
    ),
    Reference(
        r"Carlini",
        "Carlini N, Chien S, Nasr M, Song S, Terzis A, Tramèr F. Membership inference "
        "attacks from first principles. IEEE Symposium on Security and Privacy, 2022.",
    ),
    Reference(
        r"Choi et al",
        "Choi E, Biswal S, Malin B, Duke J, Stewart WF, Sun J. Generating multi-label "
        "discrete patient records using generative adversarial networks. MLHC 2017.",
    ),
    Reference(
        r"Clearbox",
        "Clearbox AI. Tutorial: privacy preservation with synthetic data (distance to "
        "closest record, training against holdout).",
    ),
    Reference(
        r"Clopper",
        "Clopper CJ, Pearson ES. The use of confidence or fiducial limits illustrated in "
        "the case of the binomial. Biometrika 26(4), 1934.",
    ),
    Reference(r"Efron", "Efron B, Tibshirani RJ. An Introduction to the Bootstrap. Chapman & Hall, 1993."),
    Reference(
        r"El Emam[^.;]*2020|Bass",
        "El Emam K, Mosquera L, Bass J. Evaluating identity disclosure risk "
        "in fully synthetic health data: model development and validation. J Med Internet Res "
        "22(11), 2020.",
    ),
    Reference(
        r"El Emam[^.;]*2022|Fang",
        "El Emam K, Mosquera L, Fang X. Validating a membership disclosure "
        "metric for synthetic health data. JAMIA Open 5(4), 2022.",
    ),
    Reference(
        r"Elliot",
        "Elliot M. Final report on the disclosure risk associated with the synthetic data "
        "produced by the SYLLS team. CMIST, University of Manchester, 2014.",
    ),
    Reference(
        r"Giomi|anonymeter",
        "Giomi M, Boenisch F, Wehmeyer C, Tasnádi B. A unified framework for "
        "quantifying privacy risk in synthetic data. Proceedings on Privacy Enhancing Technologies "
        "2023(2).",
    ),
    Reference(
        r"Gower",
        "Gower JC. A general coefficient of similarity and some of its properties. Biometrics 27(4), 1971.",
    ),
    Reference(
        r"Hanley|McNeil",
        "Hanley JA, McNeil BJ. The meaning and use of the area under a receiver "
        "operating characteristic (ROC) curve. Radiology 143(1), 1982.",
    ),
    Reference(
        r"Holm",
        "Holm S. A simple sequentially rejective multiple test procedure. Scandinavian "
        "Journal of Statistics 6(2), 1979.",
    ),
    Reference(
        r"Kaur",
        "Kaur D, Sobiesk M, Patil S, et al. Application of Bayesian networks to generate "
        "synthetic health data. JAMIA 28(4), 2021.",
    ),
    Reference(
        r"Newcombe",
        "Newcombe RG. Interval estimation for the difference between independent "
        "proportions: comparison of eleven methods. Statistics in Medicine 17(8), 1998.",
    ),
    Reference(
        r"synthpop|Nowok",
        "Nowok B, Raab GM, Dibben C. synthpop: bespoke creation of synthetic data "
        "in R. Journal of Statistical Software 74(11), 2016.",
    ),
    Reference(
        r"Reiter (&|and) Mitra",
        "Reiter JP, Mitra R. Estimating risks of identification disclosure "
        "in partially synthetic data. Journal of Privacy and Confidentiality 1(1), 2009.",
    ),
    Reference(
        r"Snoke",
        "Snoke J, Raab GM, Nowok B, Dibben C, Slavkovic A. General and specific utility "
        "measures for synthetic data. JRSS Series A 181(3), 2018.",
    ),
    Reference(
        r"Stadler|Oprisanu",
        "Stadler T, Oprisanu B, Troncoso C. Synthetic data: anonymisation "
        "groundhog day. USENIX Security 2022.",
    ),
    Reference(
        r"Taub",
        "Taub J, Elliot M, Pampaka M, Smith D. Differential correct attribution probability "
        "for synthetic data: an exploration. Privacy in Statistical Databases (PSD), 2018.",
    ),
    Reference(
        r"Wilson",
        "Wilson EB. Probable inference, the law of succession, and statistical inference. "
        "Journal of the American Statistical Association 22, 1927.",
    ),
    Reference(
        r"Woo et al",
        "Woo M-J, Reiter JP, Oganian A, Karr AF. Global measures of data utility for "
        "microdata masked for disclosure limitation. Journal of Privacy and Confidentiality 1(1), 2009.",
    ),
    Reference(
        r"Yale",
        "Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality "
        "of synthetic health data. AIDR 2019.",
    ),
)


def _strings(value) -> list[str]:
    """Every string value inside ``value`` (not the field names of a dict)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _strings(item)]
    return []


def _text(report: Mapping, extra: str) -> str:
    return " ".join(_strings(report) + [extra])


def glossary_entries(report: Mapping, extra: str = "") -> list[dict]:
    """Each term of :data:`TERMS` found in the report's text (its dump, with the measures'
    titles, readings and rules from their declarations, and ``extra``, the fixed words of its
    pages)."""
    text = _text(report, extra)
    return [
        {"term": t.term, "meaning": t.meaning}
        for t in TERMS
        if re.search(t.pattern, text, flags=re.IGNORECASE if t.term.islower() else 0)
    ]


def cited_works(report: Mapping, extra: str = "") -> list[str]:
    """Each work of :data:`REFERENCES` the report's text cites, in alphabetical order."""
    text = _text(report, extra)
    return [r.work for r in REFERENCES if re.search(r.pattern, text)]


#: Characters on one printed line of a glossary column (7pt DejaVu Sans, a third of A4's text width).
COLUMN_LINE_CHARS = 45


def in_columns(texts: list[str], count: int = 3) -> list[list[int]]:
    """The positions of ``texts`` cut into at most ``count`` runs, in order, so that the longest
    run is as short as it can be, counting each text's printed lines (:data:`COLUMN_LINE_CHARS`
    a line, one more for its spacing); empty runs are left out.

    The PDF prints each run as one column: WeasyPrint balances CSS multi-column boxes by laying
    their content out again for every trial height (a second or more for the glossary), while
    runs cut here are each laid out once, side by side.
    """
    lines = [-(-len(text) // COLUMN_LINE_CHARS) + 1 for text in texts]
    ends = [0, *itertools.accumulate(lines)]
    total, n = ends[-1], len(texts)
    best: tuple[int, list[int]] = (total + 1, [])
    # Every way to cut n texts into count runs: few texts (at most a few dozen), few columns.
    for cuts in itertools.combinations_with_replacement(range(n + 1), count - 1):
        bounds = [0, *cuts, n]
        tallest = max(ends[b] - ends[a] for a, b in itertools.pairwise(bounds))
        if tallest < best[0]:
            best = (tallest, bounds)
    return [list(range(a, b)) for a, b in itertools.pairwise(best[1]) if b > a]


def glossary_html(report: Mapping, extra: str = "") -> Markup:
    """The glossary and the references as one section, each cut into three columns
    (:func:`in_columns`; side by side in print, one after the other on screen)."""
    entries, works = glossary_entries(report, extra), cited_works(report, extra)
    entry_columns = in_columns([f"{e['term']}: {e['meaning']}" for e in entries])
    work_columns = in_columns(works)
    return render_page(
        "audit_glossary.html.j2",
        entry_columns=[[entries[i] for i in column] for column in entry_columns],
        work_columns=[[works[i] for i in column] for column in work_columns],
    )
