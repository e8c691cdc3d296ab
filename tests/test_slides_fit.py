"""Every slide of a rendered deck fits its 960 x 700 box, measured in a real browser (issue 24).

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
LESSON = ROOT / "notebooks" / "08_targeted_attacks_and_differential_privacy.ipynb"

MEASURE = """
<script>
require(["%(reveal)s"], function (Reveal) {
  function measure() {
    var size = Reveal.getConfig(), over = [], count = 0;
    document.querySelectorAll(".reveal .slides > section").forEach(function (stack, h) {
      var leaves = stack.querySelectorAll(":scope > section");
      (leaves.length ? Array.from(leaves) : [stack]).forEach(function (slide, v) {
        Reveal.slide(h, v);
        count += 1;
        if (slide.scrollHeight > size.height + 2 || slide.scrollWidth > size.width + 2) {
          over.push(h + "/" + v + " " + slide.scrollWidth + "x" + slide.scrollHeight + " "
                    + slide.textContent.trim().slice(0, 60));
        }
      });
    });
    document.body.setAttribute("data-slides", String(count));
    document.body.setAttribute("data-math-errors", String(
      (document.querySelector(".reveal .slides").textContent.match(/Math Processing Error/g) || []).length));
    document.body.setAttribute("data-overflow", JSON.stringify(over));
  }
  function ready() {
    if (window.MathJax && MathJax.Hub) { MathJax.Hub.Queue(measure); } else { measure(); }
  }
  if (Reveal.isReady()) { ready(); } else { Reveal.addEventListener("ready", ready); }
});
</script>
"""


@pytest.mark.skipif(BROWSER is None, reason="no chromium on the PATH")
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
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,800",
         "--virtual-time-budget=60000", "--dump-dom", probe.as_uri()],
        check=False, capture_output=True, text=True, timeout=300,
    ).stdout
    counted = re.search(r'data-slides="(\d+)"', dom)
    assert counted, "the measuring script did not run"
    assert int(counted.group(1)) >= 10
    assert re.search(r'data-math-errors="(\d+)"', dom).group(1) == "0", "a formula failed to typeset"
    overflowing = json.loads(re.search(r"data-overflow=\"([^\"]*)\"", dom).group(1).replace("&quot;", '"'))
    assert overflowing == [], f"{len(overflowing)} slides overflow: {overflowing}"
