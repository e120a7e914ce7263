"""scripts/check_docs_site.py (run by the ctest docs_site on the built site) finds what breaks a
site: links to missing pages or anchors, images that are not there, resources from the network."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_docs_site  # noqa: E402


def _site(tmp_path, index_body):
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "page.html").write_text(
        '<html><body><h1 id="top">t</h1><a href="../index.html#intro">back</a></body></html>')
    (tmp_path / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "index.html").write_text("<html><head></head><body><p id='intro'>x</p>%s"
                                         "</body></html>" % index_body)
    return str(tmp_path)


def test_a_sound_site_passes(tmp_path):
    site = _site(tmp_path, '<a href="guide/page.html#top">p</a><img src="pic.png">'
                           '<a href="https://example.org/">external links are fine</a>')
    assert check_docs_site.check_files(site) == []


def test_broken_links_anchors_images_and_network_resources_are_found(tmp_path):
    site = _site(tmp_path, '<a href="guide/missing.html">m</a><a href="guide/page.html#nope">a</a>'
                           '<img src="gone.png"><script src="https://cdn.example.org/x.js">'
                           '</script>')
    problems = check_docs_site.check_files(site)
    assert any("broken link guide/missing.html" in p for p in problems), problems
    assert any("no element with id 'nope'" in p for p in problems), problems
    assert any("broken link gone.png" in p for p in problems), problems
    assert any("loads https://cdn.example.org/x.js from the network" in p for p in problems)
    assert len(problems) == 4, problems
