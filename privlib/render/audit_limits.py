"""Page 1's block on what the audit could have seen: the detection limits of every kind of
disclosure without a risk, and a claimed epsilon put to the test (the report's
``detection_limits`` and ``epsilon_claim``), in sentences made from their typed fields.

The limits are context: the decision above the block stays the rule's, and the block says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from privlib.render.pages import render_page

__all__ = ["evidence_limits_html"]

#: What each leak plants, as page 1 names it.
_PLANTED = {
    "verbatim": "copied training records",
    "rare copies": "copied rare training records",
    "near copies": "near copies of training records (one value changed)",
    "rare-key attributions": "records giving away the sensitive values of people unique on the keys",
}


def _share(value: float) -> str:
    return f"{value:.2%}" if value < 0.01 else f"{value:.1%}"


def _limit_sentence(limit: Mapping[str, Any], draws: int, rate: float) -> str:
    """One leak's limit in one sentence, true of its fields."""
    what = _PLANTED[limit["leak"]]
    if limit["limit"] is None:
        whole = (
            "the whole release" if limit["largest"] == limit["release_size"] else "every record of the kind"
        )
        return (
            f"{what}: not caught reliably at any size up to {whole} ({limit['largest']:,} added; "
            f"caught in {limit['rate_at_limit']:.0%} of {draws} draws there): a leak of this kind is "
            "beyond what these files can show."
        )
    below = (
        f"; {limit['below']:,} are caught in {limit['rate_below']:.0%}, so fewer are beyond what "
        "these files can show reliably"
        if limit["below"] is not None
        else ""
    )
    return (
        f"{what}: this audit would have caught {limit['limit']:,} ({_share(limit['share'])} of the "
        f"release's {limit['release_size']:,} records) in {limit['rate_at_limit']:.0%} of {draws} "
        f"seeded draws (at least {rate:.0%} asked){below}."
    )


def _limits_view(limits: Mapping[str, Any] | None, families: list) -> dict | None:
    if not limits:
        return None
    titles = {
        f.get("family"): (f.get("title") or str(f.get("family")).capitalize(), f.get("verdict"))
        for f in families
    }
    draws, rate = limits["draws"], limits["rate"]
    rows = []
    for family in limits["families"]:
        name, verdict = titles.get(family, (str(family).capitalize(), ""))
        lines = [_limit_sentence(x, draws, rate) for x in limits["limits"] if x["family"] == family]
        rows.append(
            {"name": name, "verdict": verdict, "why": limits["not_computed"].get(family), "lines": lines}
        )
    intro = (
        "Context, not a verdict: the decision above is the rule's. For each kind of disclosure that "
        "reads no evidence of risk or inconclusive, leaked records were added to this release and the "
        "audit's own record-level tests re-run, judged by the same rule (with its Holm step; the "
        "kind's other exact tests at the p-values read above). A limit is the fewest planted records "
        f"caught in at least {rate:.0%} of {draws} seeded draws."
    )
    return {"intro": intro, "families": rows}


def _claim_view(claim: Mapping[str, Any] | None) -> dict | None:
    if not claim:
        return None
    bound, epsilon = f"{claim['lower_bound']:.3g}", f"{claim['claimed_epsilon']:g}"
    if claim["contradicts_claim"]:
        verdict = f"contradicts the claim (lower bound {bound} > {epsilon})"
    else:
        verdict = f"consistent with the claim (lower bound {bound} <= {epsilon})"
    found = (
        f"{claim['correct']:,} of {claim['guesses']:,} membership guesses right on "
        f"{claim['records_counted']:,} records ({claim['attack']} attack)"
        if claim["guesses"]
        else f"no membership guess made on {claim['records_counted']:,} records"
    )
    detail = (
        f"The lower bound on epsilon holds at {claim['confidence']:.0%} confidence, from {found}, "
        f"and assumes {claim['assumption']}; with a split that was not random it means nothing. One "
        "release and attacks on it alone give a weak bound: a bound below the claim does not prove "
        "the claim."
    )
    return {"epsilon": epsilon, "delta": f"{claim['claimed_delta']:g}", "verdict": verdict, "detail": detail}


def evidence_limits_html(report: Mapping[str, Any]) -> Markup:
    """The block, or nothing when the report has neither limits nor a claim (``report`` as the
    plain dict of the report model)."""
    limits = _limits_view(report.get("detection_limits"), report.get("families", []))
    claim = _claim_view(report.get("epsilon_claim"))
    if limits is None and claim is None:
        return Markup("")
    return render_page("audit_evidence_limits.html.j2", limits=limits, claim=claim)
