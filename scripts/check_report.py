#!/usr/bin/env python
"""Open a ``report.html`` (of a study, a tournament or a tuning run) in headless Chromium and check it as a
reader's browser shows it.

Fails (exit 1) when the page logs a console error or a script error, asks for anything outside
the file (every request other than the page itself and ``data:`` URIs is blocked and counted),
has an image that did not load or decode, or is wider than the screen, at phone and at desktop
width, as loaded and with every folded table opened (wide tables must scroll inside their own
box).  The layout it reports per screen includes the page's height and, tables opened, the most
lines a text cell takes.  Takes a screenshot at phone width and one at desktop width, and
prints a JSON summary.

Needs Debian's (or any) Chromium and the ``playwright`` Python package (in the ``test`` extra;
its own browser download is not used).  Usage::

    python scripts/check_report.py results/classic-thresholds/report.html [--screenshots DIR]
        [--chromium /usr/bin/chromium]

The Chromium binary is ``--chromium``, else ``$HANDSIM_CHROMIUM``, else the first of
``chromium``, ``chromium-browser``, ``google-chrome`` on the PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

#: Flags for a quiet, offline, sandbox-free headless Chromium (containers run as root).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
#: (name, width, height) of the screens checked.
VIEWPORTS = (("phone", 390, 844), ("desktop", 1280, 900))


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium executable to use, or None."""
    for cand in (explicit, os.environ.get("HANDSIM_CHROMIUM")):
        if cand:
            return cand if Path(cand).is_file() else shutil.which(cand)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


_IMAGES_JS = """() => Array.from(document.images).map(img => ({
    src: img.currentSrc.slice(0, 40), complete: img.complete, width: img.naturalWidth, height: img.naturalHeight}))"""
_DECODE_JS = """async () => { const out = [];
    for (const img of document.images) { try { await img.decode(); out.push(true); } catch (e) { out.push(false); } }
    return out; }"""
_LAYOUT_JS = """() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
    height: document.documentElement.scrollHeight,
    sections: document.querySelectorAll('section').length, tables: document.querySelectorAll('table').length,
    folded: document.querySelectorAll('details:not([open])').length,
    toc: document.querySelectorAll('nav.toc a').length, title: document.title})"""
# with every folded table opened: the page's width, and the most lines a text cell (not a number) takes
_OPENED_JS = """() => { document.querySelectorAll('details').forEach(d => { d.open = true; });
    let lines = 0, text = "";
    for (const td of document.querySelectorAll('td:not(.num)')) {
        const range = document.createRange();  // the text's own height (a row is as tall as its tallest cell)
        range.selectNodeContents(td);
        const n = Math.round(range.getBoundingClientRect().height / parseFloat(getComputedStyle(td).lineHeight));
        if (n > lines) { lines = n; text = td.textContent.slice(0, 80); } }
    return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
            height: document.documentElement.scrollHeight, cell_lines: lines, cell_text: text}; }"""


def check_report(html: str | os.PathLike, screenshots: str | os.PathLike | None = None,
                 chromium: str | None = None, timeout_ms: int = 60_000) -> dict:
    """Load ``html`` in headless Chromium at each of :data:`VIEWPORTS` and return what was found.

    Returns
    -------
    dict
        ``ok`` (bool), ``problems`` (list of one-line strings), ``images`` (count), ``console``
        (messages of type error/warning), ``blocked`` (requests refused), ``screenshots`` (paths),
        ``layout`` per viewport, ``browser`` (version).

    Raises
    ------
    FileNotFoundError
        ``html`` does not exist or no Chromium was found.
    ImportError
        playwright is not installed.
    """
    from playwright.sync_api import sync_playwright

    path = Path(html).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no such report: {path}")
    exe = find_chromium(chromium)
    if exe is None:
        raise FileNotFoundError("no Chromium found: install it (Debian: apt-get install chromium) or pass --chromium")
    url = path.as_uri()
    shots_dir = Path(screenshots) if screenshots else None
    if shots_dir:
        shots_dir.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    console: list[str] = []
    blocked: list[str] = []
    shots: list[str] = []
    layout: dict = {}
    n_images = 0
    version = ""
    with sync_playwright() as pw, tempfile.TemporaryDirectory(prefix="handsim-chromium-") as profile:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=exe, headless=True, args=CHROMIUM_ARGS,
                                                    offline=True, viewport={"width": 1280, "height": 900})
        try:
            version = ctx.browser.version if ctx.browser else ""

            def route(r):
                u = r.request.url
                if u == url or u.startswith("data:"):
                    r.continue_()
                else:
                    blocked.append(u[:120])
                    r.abort()

            ctx.route("**/*", route)
            for name, w, h in VIEWPORTS:
                page = ctx.new_page()
                page.set_viewport_size({"width": w, "height": h})
                page.on("console", lambda m, name=name: console.append(f"{name}: {m.type}: {m.text}")
                        if m.type in ("error", "warning") else None)
                page.on("pageerror", lambda e, name=name: console.append(f"{name}: pageerror: {e}"))
                page.goto(url, wait_until="load", timeout=timeout_ms)
                decoded = page.evaluate(_DECODE_JS)
                imgs = page.evaluate(_IMAGES_JS)
                n_images = len(imgs)
                for i, (img, ok) in enumerate(zip(imgs, decoded)):
                    if not (ok and img["complete"] and img["width"] > 0 and img["height"] > 0):
                        problems.append(f"{name}: image {i + 1} did not load or decode ({img['src']}...)")
                lay = page.evaluate(_LAYOUT_JS)
                layout[name] = lay
                if lay["scroll"] > lay["inner"] + 1:
                    problems.append(f"{name}: the page is {lay['scroll']} px wide on a {lay['inner']} px screen")
                if shots_dir:
                    shot = shots_dir / f"report-{name}.png"
                    page.screenshot(path=str(shot), full_page=False)
                    shots.append(str(shot))
                lay["opened"] = opened = page.evaluate(_OPENED_JS)
                if opened["scroll"] > opened["inner"] + 1:
                    problems.append(f"{name}: with its tables opened the page is {opened['scroll']} px wide on a "
                                    f"{opened['inner']} px screen")
                page.close()
        finally:
            ctx.close()
    problems += [f"console {m}" for m in console if ": error: " in m or ": pageerror: " in m]
    problems += [f"blocked request to {u}" for u in blocked]
    return {"ok": not problems, "problems": problems, "images": n_images, "console": console, "blocked": blocked,
            "screenshots": shots, "layout": layout, "browser": version}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html", help="a report.html")
    ap.add_argument("--screenshots", metavar="DIR", help="write report-phone.png and report-desktop.png here")
    ap.add_argument("--chromium", help="the Chromium executable")
    args = ap.parse_args(argv)
    try:
        res = check_report(args.html, args.screenshots, args.chromium)
    except (FileNotFoundError, ImportError) as e:
        print(f"check_report: {e}", file=sys.stderr)
        return 2
    print(json.dumps(res, indent=2))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
