#!/usr/bin/env python3
"""Checks the built documentation site (scripts/docs.sh writes it to build/docs/html):

1. every page's internal links and images resolve: the file exists, and a #fragment names an
   element id of the target page (all pages, also those no link reaches);
2. no page loads anything from the network (scripts, style sheets, images, fonts from http(s):
   the site must work offline);
3. served over HTTP on localhost, the pages reachable from the front page all load (a crawl
   that follows every internal link), and headless Chromium (Debian `chromium`) renders the
   front page and the work-precision page into screenshots (build/docs/screenshots/*.png),
   which must be PNG images that are not blank.

    /usr/bin/python3 scripts/check_docs_site.py [build/docs/html]

Exits 1 naming every broken link (page, target) and every failed check."""
import functools
import html.parser
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCREENSHOT_PAGES = ["index.html", "benchmarks.html"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


class _Page(html.parser.HTMLParser):
    """The ids of a page, its links (a href) and the resources it loads (src, link href)."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.resources = set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag in ("img", "script", "iframe", "source", "embed") and a.get("src"):
            self.resources.append(a["src"])
        if tag == "link" and a.get("href"):
            self.resources.append(a["href"])


@functools.lru_cache(maxsize=None)
def _parse(path):
    p = _Page()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    return p


def _external(url):
    return urllib.parse.urlsplit(url).scheme in ("http", "https") or url.startswith("//")


def check_files(site):
    """Broken internal links and external resources of every page: a list of messages."""
    problems = []
    for dirpath, _, files in os.walk(site):
        if os.path.relpath(dirpath, site).split(os.sep)[0] in ("_sources", "_static"):
            continue
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            page = os.path.join(dirpath, name)
            rel = os.path.relpath(page, site)
            parsed = _parse(page)
            for url in parsed.resources:
                if _external(url):
                    problems.append("%s: loads %s from the network" % (rel, url))
                else:
                    problems += _check_target(site, page, url, rel, anchors=False)
            for url in parsed.links:
                if _external(url) or url.startswith(("mailto:", "javascript:")):
                    continue
                problems += _check_target(site, page, url, rel, anchors=True)
    return problems


def _check_target(site, page, url, rel, anchors):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme:
        return ["%s: link %s with scheme %s" % (rel, url, parts.scheme)]
    target = page if not parts.path else os.path.normpath(
        os.path.join(os.path.dirname(page), urllib.parse.unquote(parts.path)))
    if os.path.isdir(target):
        target = os.path.join(target, "index.html")
    if not target.startswith(os.path.abspath(site)) or not os.path.exists(target):
        return ["%s: broken link %s" % (rel, url)]
    if anchors and parts.fragment and target.endswith(".html"):
        if urllib.parse.unquote(parts.fragment) not in _parse(target).ids:
            return ["%s: link %s: no element with id '%s'" % (rel, url, parts.fragment)]
    return []


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that closes early (the browser, a HEAD check) is not the site's fault


def _serve(site):
    handler = functools.partial(_QuietHandler, directory=site)
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def crawl(base):
    """Every page reachable from the front page over HTTP: (pages loaded, problems)."""
    seen, todo, problems = set(), [base + "index.html"], []
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                body = r.read().decode("utf-8", errors="replace")
        except Exception as e:  # an HTTP error or a refused connection: the link is broken
            problems.append("HTTP %s: %s" % (url, e))
            continue
        p = _Page()
        p.feed(body)
        for link in p.links + p.resources:
            full = urllib.parse.urljoin(url, link).split("#")[0]
            if not full.startswith(base) or full in seen:
                continue
            if full.endswith(".html"):
                todo.append(full)
            else:
                try:
                    urllib.request.urlopen(urllib.request.Request(full, method="HEAD"),
                                           timeout=30).close()
                    seen.add(full)
                except Exception as e:
                    problems.append("HTTP %s (from %s): %s" % (full, url, e))
    return seen, problems


def screenshot(url, out_png, profile):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return ["chromium not found (Debian package chromium; scripts/setup.sh installs it)"]
    cmd = [chromium] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile,
                                         "--window-size=1280,1600",
                                         "--screenshot=" + out_png, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not os.path.exists(out_png):
        return ["chromium failed on %s (%d): %s" % (url, proc.returncode, proc.stderr[-2000:])]
    return _not_blank(out_png)


def _not_blank(png):
    with open(png, "rb") as f:
        head = f.read(8)
    if head != b"\x89PNG\r\n\x1a\n":
        return ["%s is not a PNG image" % png]
    import matplotlib.image  # Debian python3-matplotlib (setup.sh)
    img = matplotlib.image.imread(png)
    if img.std() < 0.02:  # one colour: nothing rendered
        return ["%s is blank (standard deviation %.4f)" % (png, img.std())]
    return []


def main():
    site = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(ROOT, "build", "docs", "html"))
    if not os.path.exists(os.path.join(site, "index.html")):
        print("check_docs_site: %s/index.html missing (run bash scripts/docs.sh)" % site)
        return 1
    problems = check_files(site)
    server = _serve(site)
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    try:
        pages, crawl_problems = crawl(base)
        problems += crawl_problems
        shots = os.path.join(os.path.dirname(site), "screenshots")
        os.makedirs(shots, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="daekit-chromium-") as profile:
            for page in SCREENSHOT_PAGES:
                out = os.path.join(shots, page.replace(".html", ".png"))
                if os.path.exists(out):
                    os.remove(out)
                problems += screenshot(base + page, out, profile)
    finally:
        server.shutdown()
    for p in problems:
        print("check_docs_site: " + p)
    n_html = sum(1 for u in pages if u.endswith(".html"))
    print("check_docs_site: %d pages and %d files over HTTP, screenshots in %s: %s"
          % (n_html, len(pages) - n_html, shots, "FAILED" if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
