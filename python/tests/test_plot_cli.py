"""result.plot() with matplotlib; `daekit sweep` JSON lines (the pkg-config file is tested by
the ctest consumer_project)."""

import json
import select
import subprocess

import numpy as np
import pytest

import daekit


def test_plot_writes_png(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    res = daekit.solve_problem("pi-valve")
    png = tmp_path / "valve.png"
    ax = res.plot(filename=str(png))
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"
    labels = [line.get_label() for line in ax.get_lines()
              if not line.get_label().startswith("_")]
    assert labels == ["z"]  # the problem's plot components (the valve) by name
    assert len(res.events) > 0 and len(ax.get_lines()) == 1 + len(res.events)  # event lines
    assert ax.get_xscale() == "linear"
    # steps spread over 16 decades: a logarithmic t axis
    rober = daekit.solve_problem("robertson")
    assert rober.plot().get_xscale() == "log"


def test_sweep_json_lines(cli, tmp_path):
    params = tmp_path / "torques.csv"
    params.write_text("# torque\n0.030\n0.033\n\n0.036\n")
    proc = subprocess.run([cli, "sweep", "andrews", "--params", str(params)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3
    runs = [json.loads(line) for line in lines]
    assert [r["run"] for r in runs] == [0, 1, 2]
    assert [r["p"] for r in runs] == [[0.03], [0.033], [0.036]]
    assert all(r["ok"] and r["status"] == "success" for r in runs)
    ens = daekit.solve_many("andrews", [[0.03], [0.033], [0.036]], threads=1)
    assert np.array_equal(np.array([r["y"] for r in runs]), ens.y)  # same digits as Python
    assert set(runs[0]["stats"]) == set(ens.stats)
    # a block of the sweep, as a scheduler's array job would run it
    part = subprocess.run([cli, "sweep", "andrews", "--values", "0.030,0.033,0.036",
                           "--first", "1", "--count", "1"], capture_output=True, text=True)
    assert part.returncode == 0 and json.loads(part.stdout)["run"] == 1
    assert json.loads(part.stdout)["y"] == runs[1]["y"]
    # errors: exit 2 with a message
    bad = subprocess.run([cli, "sweep", "andrews", "--values", "0.03,abc"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "needs a finite number, got 'abc'" in bad.stderr
    bad = subprocess.run([cli, "sweep", "vanderpol", "--values", "1"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "has 0 parameter(s)" in bad.stderr
    # not a parameter file: refused at once instead of read until memory runs out
    long_line = tmp_path / "long.csv"
    long_line.write_text("1" * ((1 << 20) + 10))
    bad = subprocess.run([cli, "sweep", "andrews", "--params", str(long_line)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "a line longer than 1 MiB" in bad.stderr
    fail = subprocess.run([cli, "sweep", "andrews", "--values", "0.033", "--max-steps", "3"],
                          capture_output=True, text=True)
    assert fail.returncode == 1 and json.loads(fail.stdout)["status"] == "max_steps_exceeded"


def test_sweep_streams_the_parameter_sets(cli, tmp_path):
    """`daekit sweep --params` reads, solves and writes one set at a time (all sets were read and
    made into problems first, ~25 KB per line: 200,000 lines took 4 GB): the first run's line
    comes out while the input is still open, and the output is the same as from a file."""
    proc = subprocess.Popen([cli, "sweep", "andrews", "--params", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runs = []
    try:
        for torque in ("# torque", "0.030", "", "0.033"):
            proc.stdin.write(torque + "\n")
            proc.stdin.flush()
            if not torque.startswith("0"):
                continue
            # (a guard against waiting forever, not a timing: the line comes when the run ends)
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, "no output while the input is open: the sweep does not stream"
            runs.append(json.loads(proc.stdout.readline()))
        proc.stdin.write("0.036")  # (the last line without its newline)
        proc.stdin.close()
        runs += [json.loads(line) for line in proc.stdout.read().splitlines()]
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert [r["run"] for r in runs] == [0, 1, 2]
    assert [r["p"] for r in runs] == [[0.03], [0.033], [0.036]]
    params = tmp_path / "torques.csv"
    params.write_text("# torque\n0.030\n\n0.033\n0.036")
    from_file = subprocess.run([cli, "sweep", "andrews", "--params", str(params)],
                               capture_output=True, text=True)
    assert from_file.returncode == 0, from_file.stderr
    for streamed, read in zip(runs, map(json.loads, from_file.stdout.splitlines())):
        assert streamed["y"] == read["y"] and streamed["stats"] == read["stats"]


def test_sweep_bad_parameter_line(cli, tmp_path):
    """A file is checked whole before the first solve (a bad line fails fast, nothing solved); from
    a pipe each set is checked as it arrives, and the runs before the bad line are written."""
    bad = tmp_path / "bad.csv"
    bad.write_text("0.030\n0.033\n0.03x\n")
    proc = subprocess.run([cli, "sweep", "andrews", "--params", str(bad)], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "line 3 needs a finite number, got '0.03x'" in proc.stderr
    wrong_size = tmp_path / "size.csv"
    wrong_size.write_text("0.030\n0.033, 1\n")
    proc = subprocess.run([cli, "sweep", "andrews", "--params", str(wrong_size)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "parameter set 1: problem 'andrews' has 1 parameter(s)" in proc.stderr
    piped = subprocess.run([cli, "sweep", "andrews", "--params", "-"], input="0.030\n0.03x\n",
                           capture_output=True, text=True)
    assert piped.returncode == 2 and "line 2" in piped.stderr
    assert [json.loads(line)["run"] for line in piped.stdout.splitlines()] == [0]
    # --first / --count select from a stream as from a file; --first beyond the sets is an error
    part = subprocess.run([cli, "sweep", "andrews", "--params", "-", "--first", "1", "--count",
                           "1"], input="0.030\n0.033\n0.036\n", capture_output=True, text=True)
    assert part.returncode == 0 and [json.loads(line)["run"] for line in
                                     part.stdout.splitlines()] == [1]
    good = tmp_path / "good.csv"
    good.write_text("0.030\n0.033\n")
    for source in (["--params", "-"], ["--params", str(good)], ["--values", "0.03,0.033"]):
        beyond = subprocess.run([cli, "sweep", "andrews", *source, "--first", "5"],
                                input="0.030\n0.033\n", capture_output=True, text=True)
        assert beyond.returncode == 2 and beyond.stdout == "", source
        assert "--first 5 is beyond the 2 parameter sets" in beyond.stderr, source
