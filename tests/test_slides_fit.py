"""Every slide of a rendered deck fits its 960 x 700 box, measured in a real browser.

The deck of one lesson is rendered, a measuring script is added to a copy, and headless
Chromium runs it: each slide is shown in turn through reveal.js and its content box is compared
with the slide size. Figures and tables may scroll inside their own box; the slide itself may
not overflow, and every formula must typeset. Skipped where no ``chromium`` is on the PATH.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from privlib import slides

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "build" / "slides-assets"  # git-ignored cache shared by test runs
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
LESSON = ROOT / "notebooks" / "09_differential_privacy.ipynb"

MEASURE = """
<script>
require(["%(reveal)s"], function (Reveal) {
  function visit(check) {  // show each slide in turn
    var count = 0;
    document.querySelectorAll(".reveal .slides > section").forEach(function (stack, h) {
      var leaves = stack.querySelectorAll(":scope > section");
      (leaves.length ? Array.from(leaves) : [stack]).forEach(function (slide, v) {
        Reveal.slide(h, v);
        count += 1;
        check(slide, h, v);
      });
    });
    return count;
  }
  function measure() {
    var size = Reveal.getConfig(), over = [];
    var count = visit(function (slide, h, v) {
      if (slide.scrollHeight > size.height + 2 || slide.scrollWidth > size.width + 2) {
        over.push(h + "/" + v + " " + slide.scrollWidth + "x" + slide.scrollHeight + " "
                  + slide.textContent.trim().slice(0, 60));
      }
    });
    document.body.setAttribute("data-slides", String(count));
    setTimeout(function () {  // formula errors: counted once MathJax has surely finished
      var slides = document.querySelector(".reveal .slides");
      var errors = slides.querySelectorAll(".MathJax_Error, merror, mtext[mathcolor=red]").length
        + (slides.textContent.match(/Math (Processing|input) error/gi) || []).length;
      document.body.setAttribute("data-math-errors", String(errors));
    }, 20000);
    document.body.setAttribute("data-overflow", JSON.stringify(over));
  }
  function ready() {
    // MathJax typesets the page, then again each slide shown: measure once it has done both
    if (!(window.MathJax && MathJax.Hub)) { measure(); return; }
    MathJax.Hub.Register.StartupHook("End", function () {  // after the first typesetting
      visit(function () {});
      MathJax.Hub.Queue(measure);
    });
  }
  if (Reveal.isReady()) { ready(); } else { Reveal.addEventListener("ready", ready); }
});
</script>
"""


@pytest.mark.slow  # a browser lays out every lesson: 7 s measured alone
@pytest.mark.skipif(BROWSER is None, reason="no chromium on the PATH (apt-get install chromium)")
def test_no_slide_of_a_lesson_overflows(tmp_path):
    if not (ASSETS / "reveal.js" / "dist" / "reveal.js").exists() and shutil.which("npm") is None:
        pytest.skip("npm is needed once to fetch reveal.js")
    pytest.importorskip("jupyter_server_mathjax")
    deck = slides.render_slides(LESSON, tmp_path / "deck.html", assets=slides.fetch_assets(ASSETS))
    page = deck.read_text()
    reveal = re.search(r'"([^"]*reveal\.js/dist/reveal\.js)"', page).group(1)
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", MEASURE % {"reveal": reveal} + "</body>", 1))
    dom = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,800",
            "--virtual-time-budget=60000",
            "--dump-dom",
            probe.as_uri(),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    counted = re.search(r'data-slides="(\d+)"', dom)
    assert counted, "the measuring script did not run"
    assert int(counted.group(1)) >= 10
    assert re.search(r'data-math-errors="(\d+)"', dom).group(1) == "0", "a formula failed to typeset"
    overflowing = json.loads(re.search(r"data-overflow=\"([^\"]*)\"", dom).group(1).replace("&quot;", '"'))
    assert overflowing == [], f"{len(overflowing)} slides overflow: {overflowing}"
