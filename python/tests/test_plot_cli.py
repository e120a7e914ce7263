"""result.plot() with matplotlib; `daekit sweep` JSON lines (the pkg-config file is tested by
the ctest consumer_project)."""

import json
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
