"""docs/claims.md is what scripts/claims.py generates from the inventory and the tests' `claim:`
comments, every annotation names a claim of the inventory, and every annotated test exists
(C++ ones in the built test binary's --gtest_list_tests, Python ones in their file)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("DAEKIT_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import claims  # noqa: E402


def test_claims_page_is_generated():
    current = open(claims.PAGE, encoding="utf-8").read()
    assert current == claims.generate(), \
        "docs/claims.md is stale: run /usr/bin/python3 scripts/claims.py"


def test_annotations_name_known_claims():
    assert claims.unknown_ids(claims.read_inventory(), claims.annotations()) == []


def test_every_document_has_a_count_line():
    text = open(claims.PAGE, encoding="utf-8").read()
    for label in ("paper 000", "paper 001", "paper 002", "paper 003", "notes 004"):
        assert "- %s: " % label in text


def _gtest_names():
    exe = os.path.join(BUILD, "tests", "daekit_tests")
    if not os.path.exists(exe):
        pytest.fail("test binary not found: %s" % exe)
    out = subprocess.run([exe, "--gtest_list_tests"], capture_output=True, text=True,
                         timeout=120).stdout
    names, suite = set(), None
    for line in out.splitlines():
        if not line.startswith(" "):
            suite = line.split("#")[0].strip().rstrip(".")
        else:
            test = line.split("#")[0].strip()
            # TEST_P: "Prefix/Suite." and "Name/0": keep Suite.Name
            names.add("%s.%s" % (suite.split("/")[-1], test.split("/")[0]))
    return names


def test_annotated_tests_exist():
    listed = _gtest_names()
    missing = []
    for cid, _note, name, kind, path in claims.annotations():
        if kind == "cpp" and name not in listed:
            missing.append("%s (%s)" % (name, cid))
        if kind == "py":
            func = name.split("::")[1]
            if "def %s(" % func not in open(path, encoding="utf-8").read():
                missing.append("%s (%s)" % (name, cid))
    assert missing == [], "annotated tests not found: %s" % ", ".join(missing)


def test_a_claim_comment_must_sit_above_a_test(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "python" / "tests").mkdir(parents=True)
    (tmp_path / "tests" / "test_x.cpp").write_text("// claim: 000-x\nint helper = 0;\n")
    with pytest.raises(ValueError):
        claims.annotations(str(tmp_path))


def test_unknown_ids_are_reported(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "python" / "tests").mkdir(parents=True)
    (tmp_path / "tests" / "test_x.cpp").write_text("// claim: 000-no-such-claim\nTEST(A, B) {}\n")
    notes = claims.annotations(str(tmp_path))
    assert claims.unknown_ids(claims.read_inventory(), notes) == [("000-no-such-claim", "A.B")]


@pytest.mark.parametrize("text", [
    # a deviation note that clang-format wrapped before its closing parenthesis
    "// claim: 000-d3-definition (deviation: the printed d3 equals 2 lambda on the\n"
    "// exact solution)\nTEST(A, B) {}\n",
    # a claim merged into the comment above it
    "// the stages stay close to the step. claim: 000-L3.2-stage-bound\nTEST(A, B) {}\n",
])
def test_a_malformed_annotation_is_refused_not_dropped(tmp_path, text):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_wrapped.cpp").write_text(text)
    with pytest.raises(ValueError, match="malformed `claim:`"):
        claims.annotations(str(tmp_path))
