# Sphinx configuration of daekit's documentation site (built by `bash scripts/docs.sh` into
# build/docs/html; docs/about.md says why Sphinx and which Debian packages it uses).
#
# Everything is offline: the theme, its fonts and the search index come from Debian packages,
# no intersphinx, no MathJax (the pages write formulas as code), no CDN. The C++ reference is
# read from Doxygen's XML (build/docs/doxygen/xml, written by scripts/docs.sh) through breathe,
# the Python reference from the module built into build/python (autodoc imports it).
import glob
import os
import re
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
BUILD = os.environ.get("DAEKIT_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))

project = "daekit"
author = "the daekit developers"
copyright = "daekit developers"
release = "0.1.0"

extensions = ["myst_parser", "breathe", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["conf.py", "_build", "**/README.md", "claims/inventory.md"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # the theory pages start at level 2 after a level-1 title

html_theme = "sphinx_rtd_theme"
html_title = "daekit documentation"
html_show_sourcelink = False
html_theme_options = {"navigation_depth": 3, "collapse_navigation": False}

breathe_projects = {"daekit": os.path.join(BUILD, "docs", "doxygen", "xml")}
breathe_default_project = "daekit"
breathe_default_members = ("members",)

autodoc_default_options = {"members": True, "undoc-members": True}
autodoc_typehints = "none"


def _existing(docname):
    return any(os.path.exists(os.path.join(DOCS, docname + ext)) for ext in (".md", ".rst"))


def _optional_toctree_entries(text):
    """A toctree entry written `?page` is listed only when docs/page.md exists: pages other work
    adds (switches, sensitivities) appear once they are written and never break the build."""
    def keep(m):
        return m.group(1) + m.group(2) + "\n" if _existing(m.group(2)) else ""
    return re.sub(r"^(\s*)\?(\S+)[ \t]*\n", keep, text, flags=re.M)


# What a header's section shows: its description (the declarations are rendered once, by
# namespace, below the headers: a file's Doxygen XML does not hold its namespace's members).
_FILE_SECTIONS = "briefdescription detaileddescription"


def _cpp_reference(text):
    """`{daekit-headers}` expands to one section per public header (include/daekit/**.hpp,
    found when the site is built, so new headers join the reference without an edit)."""
    if "{daekit-headers}" not in text:
        return text
    parts = []
    for path in sorted(glob.glob(os.path.join(ROOT, "include", "daekit", "**", "*.hpp"),
                                 recursive=True)):
        rel = os.path.relpath(path, os.path.join(ROOT, "include"))
        parts.append("## `%s`\n\n```{doxygenfile} %s\n:project: daekit\n:sections: %s\n```\n"
                     % (rel, rel, _FILE_SECTIONS))
    parts.append("## Everything in namespace `daekit`\n\n```{doxygennamespace} daekit\n"
                 ":project: daekit\n:members:\n:undoc-members:\n```\n")
    return text.replace("{daekit-headers}", "\n".join(parts))


def _source_read(app, docname, source):
    source[0] = _cpp_reference(_optional_toctree_entries(source[0]))


def setup(app):
    app.connect("source-read", _source_read)
